/**
 * Message templates as the management API sees them: a Liquid template is parsed and
 * rendered once with sample variables when a connection is created or PATCHed (a template
 * that does not parse, or whose sample render is cut off, is a 400 naming the line), and
 * `POST /connections/{id}/sms-template/test` shows the message a start would send and its
 * SMS segments.
 */
import {
  applyConnectionOptionsPatch,
  type ConnectionOptions,
  type SmsTemplateTestRequest,
  type SmsTemplateTestResponse,
} from '@smsauth/contracts';
import type { IdentityStore } from '../../store';
import { LiquidTemplateError } from '../passwordless/liquid-template';
import { chooseMessageLanguage } from '../passwordless/message-language';
import { messageBody, type MessageVariables } from '../passwordless/sms-message';
import { canonicalPhoneNumber } from '../phone/canonical-number';
import { countSmsSegments } from '../passwordless/sms-segments';
import { invalidField, notFound, validationFailed } from './validation';

/** Digits of the connection's code length: the code itself is never known in advance. */
function sampleCode(length: number): string {
  return '1234567890'.repeat(2).slice(0, length);
}

export const SAMPLE_PHONE_NUMBER = '+14155550100';
export const SAMPLE_APPLICATION_NAME = 'My App';

/** The sample variables, with the default messages' language chosen as a start would choose it (request_language, else the number's country). */
function sampleVariables(options: ConnectionOptions, overrides: Partial<Omit<MessageVariables, 'messageLanguage'>> = {}): MessageVariables {
  const variables = {
    code: sampleCode(options.totp.length),
    phoneNumber: SAMPLE_PHONE_NUMBER,
    applicationName: SAMPLE_APPLICATION_NAME,
    connectionName: options.name,
    requestLanguage: null,
    send: 'code' as const,
    ...overrides,
  };
  const number = canonicalPhoneNumber(variables.phoneNumber);
  const country = number.ok ? number.number.country : undefined;
  return { ...variables, messageLanguage: chooseMessageLanguage({ requestLanguage: variables.requestLanguage, country }).language };
}

/** The message with these variables; a Liquid problem is a 400 naming `options.template` and the line. */
function renderOrRefuse(options: ConnectionOptions, variables: MessageVariables): string {
  try {
    return messageBody(options, variables);
  } catch (err) {
    if (err instanceof LiquidTemplateError) throw invalidField('options.template', err.message);
    throw err;
  }
}

/** Create/PATCH: a Liquid template must parse and render its sample message within the limits. */
export function checkConnectionTemplate(options: ConnectionOptions): void {
  if (options.syntax === 'liquid') renderOrRefuse(options, sampleVariables(options));
}

export async function testSmsTemplate(store: IdentityStore, id: string, request: SmsTemplateTestRequest): Promise<SmsTemplateTestResponse> {
  const connection = await store.connections.findById(id);
  if (!connection) throw notFound('Connection');
  const { variables = {}, ...draft } = request;
  const merged = applyConnectionOptionsPatch(connection.options, draft);
  if (!merged.success) throw validationFailed(merged.issues);
  const firstClient = connection.enabled_clients[0] ? await store.clients.findById(connection.enabled_clients[0]) : undefined;
  const message = renderOrRefuse(
    merged.options,
    sampleVariables(merged.options, {
      ...(variables.phone_number ? { phoneNumber: variables.phone_number } : {}),
      applicationName: variables.application_name ?? firstClient?.name ?? SAMPLE_APPLICATION_NAME,
      ...(variables.request_language !== undefined ? { requestLanguage: variables.request_language } : {}),
    }),
  );
  return { body: message, ...countSmsSegments(message) };
}
