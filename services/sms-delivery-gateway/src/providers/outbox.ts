import type { ProviderFactory } from './provider';

/** Keeps the message in the in-memory outbox instead of sending it (development, tests, e2e). */
export const createOutboxProvider: ProviderFactory = ({ outbox, clock }) => ({
  name: 'outbox',
  async send(message) {
    outbox.add({
      id: message.id,
      recipient: message.recipient,
      sender: message.sender ?? null,
      body: message.body,
      received_at: clock.now().toISOString(),
    });
    return { providerMessageId: message.id };
  },
});
