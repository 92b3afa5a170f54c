import { DEFAULT_MESSAGE_TEMPLATE } from '../../contracts/src/connection';
import { SHIPPED_MESSAGE_TEMPLATE } from '../src/screens/connections';

describe('a new connection in the console', () => {
  it('starts from the template identity ships, so it sends the built-in message in the user language', () => {
    expect(SHIPPED_MESSAGE_TEMPLATE).toBe(DEFAULT_MESSAGE_TEMPLATE);
  });
});
