/**
 * SMS economics (issue 47): the tenant's own price per country and channel, in USD per message
 * (a voice call: per call). Country `*` prices every country without its own. Rows only where
 * the tenant set a price; the built-in list prices (domain/management/sms-prices.ts) fill the
 * rest. Only adds, so replicas of the previous release keep working on the new schema.
 */
export const sql = `
CREATE TABLE sms_prices (
  country    text NOT NULL,
  channel    text NOT NULL,
  price      numeric(12, 6) NOT NULL CHECK (price >= 0),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (country, channel)
);
`;
