/** Reads the newest code sent to a number from the gateway's dev outbox. */
export async function readCodeFromOutbox(
  gatewayUrl: string,
  phoneNumber: string,
  options: { outboxToken?: string; notBefore?: Date; timeoutMs?: number } = {},
): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 5_000);
  const headers: Record<string, string> = options.outboxToken ? { authorization: `Bearer ${options.outboxToken}` } : {};
  for (;;) {
    const res = await fetch(`${gatewayUrl}/outbox/messages?recipient=${encodeURIComponent(phoneNumber)}`, { headers });
    if (!res.ok) throw new Error(`outbox answered ${res.status}: ${await res.text()}`);
    const messages = (await res.json()) as Array<{ body: string; received_at: string }>;
    const newest = messages.find((m) => !options.notBefore || new Date(m.received_at) >= options.notBefore);
    // The last run of digits: templates end with the code (and the WebOTP line repeats it last),
    // while an application name before it may hold digits of its own ("App 2024", "app-483920").
    const code = newest?.body.match(/\b\d{4,10}\b/g)?.at(-1);
    if (code) return code;
    if (Date.now() > deadline) throw new Error(`no code for ${phoneNumber} in the outbox`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
