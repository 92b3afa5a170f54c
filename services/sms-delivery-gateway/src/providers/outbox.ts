import { z } from 'zod';
import { defineProvider } from './provider';

/**
 * Keeps the message in the in-memory outbox instead of sending it (development, tests, e2e).
 * No variables of its own: OUTBOX_CAPACITY and OUTBOX_TOKEN size and guard the outbox store
 * and its read API, which the service owns (app.ts) whichever provider is selected.
 */
export const outboxProvider = defineProvider({
  name: 'outbox',
  settingsSchema: z.object({}),
  create: (_settings, { name, outbox, clock }) => ({
    name,
    async send(message) {
      outbox.add({
        id: message.id,
        recipient: message.recipient,
        sender: message.routeSender ?? message.sender ?? null,
        body: message.body,
        channel: message.channel,
        language: message.language ?? null,
        received_at: clock.now().toISOString(),
      });
      return { providerMessageId: message.id };
    },
  }),
});
