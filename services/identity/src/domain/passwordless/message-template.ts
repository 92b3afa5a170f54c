/**
 * `md_with_macros` message templates: `@@password@@`, `@@phone_number@@` and
 * `@@application.name@@` are replaced wherever they occur; any other `@@name@@` is left as
 * written. One pass over the template with a replacer function, so values are inserted
 * literally: a client name containing `@@password@@` or `$&` is never expanded again.
 */

export interface MessageTemplateValues {
  /** The one-time code. */
  password: string;
  /** The recipient, E.164. */
  phoneNumber: string;
  /** The name of the client that started the login. */
  applicationName: string;
}

export const MESSAGE_TEMPLATE_MACROS = ['password', 'phone_number', 'application.name'] as const;

const MACRO = /@@([A-Za-z0-9_.]+)@@/g;

export function renderMessageTemplate(template: string, values: MessageTemplateValues): string {
  const byName: Record<string, string> = {
    password: values.password,
    phone_number: values.phoneNumber,
    'application.name': values.applicationName,
  };
  return template.replace(MACRO, (macro: string, name: string) =>
    Object.hasOwn(byName, name) ? (byName[name] as string) : macro,
  );
}
