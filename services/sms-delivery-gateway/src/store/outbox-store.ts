import type { OutboxMessage } from '@smsauth/contracts';

/**
 * The development outbox: the last `capacity` messages, in memory, in a ring buffer so
 * memory stays bounded however many messages arrive. Oldest are overwritten first.
 */
export class OutboxStore {
  private readonly slots: Array<OutboxMessage | undefined>;
  private next = 0;
  private count = 0;

  constructor(public readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.slots = new Array<OutboxMessage | undefined>(capacity);
  }

  add(message: OutboxMessage): void {
    this.slots[this.next] = message;
    this.next = (this.next + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
  }

  /** Newest first, optionally only one recipient's. */
  list(recipient?: string): OutboxMessage[] {
    const messages: OutboxMessage[] = [];
    for (let i = 1; i <= this.count; i++) {
      const message = this.slots[(this.next - i + this.capacity) % this.capacity];
      if (message && (recipient === undefined || message.recipient === recipient)) messages.push(message);
    }
    return messages;
  }

  clear(): void {
    this.slots.fill(undefined);
    this.next = 0;
    this.count = 0;
  }

  get size(): number {
    return this.count;
  }
}
