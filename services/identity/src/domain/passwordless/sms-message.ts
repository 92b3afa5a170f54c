import { ErrorCodes, SmsProviderErrorDescriptions, type ConnectionOptions, type DeliveryChannel, type DeliveryRequest, type LoginLanguage } from '@smsauth/contracts';
import { HttpError } from '@smsauth/service-kit';
import type { StoredClient, StoredConnection } from '../../store';
import { defaultSms, defaultWhatsAppMessage, usesDefaultMessages } from './default-messages';
import { withDomainBoundCode } from './domain-bound-code';
import { GatewayTokenError, signGatewayToken } from './gateway-token';
import { LiquidTemplateError, renderLiquidTemplate, type LiquidMessageVariables } from './liquid-template';
import { renderMessageTemplate } from './message-template';
import { SmsProviderError } from './sms-gateway';
import { voiceMessage } from './voice-message';

/** The connection's gateway JWT, or none when it has no gateway_authentication. */
export function gatewayToken(connection: StoredConnection, now: Date): string | undefined {
  const auth = connection.options.gateway_authentication;
  if (!auth) return undefined;
  try {
    return signGatewayToken(auth, now);
  } catch (err) {
    if (err instanceof GatewayTokenError) {
      throw new SmsProviderError('authentication_failed', SmsProviderErrorDescriptions.GATEWAY_TOKEN_UNUSABLE);
    }
    throw err;
  }
}

/** What a message may say (the Liquid names are Auth0's), and the language of the default messages (chooseMessageLanguage). */
export type MessageVariables = LiquidMessageVariables & { messageLanguage: LoginLanguage };

/**
 * The text of the SMS: the default message in `messageLanguage` when the connection keeps the
 * shipped template (usesDefaultMessages), else the template in its syntax (`md_with_macros`,
 * exactly as before; or `liquid`); then the domain-bound lines when the connection has `webotp`.
 * Throws LiquidTemplateError when a Liquid template cannot be rendered.
 */
export function messageBody(options: Pick<ConnectionOptions, 'syntax' | 'template' | 'webotp'>, variables: MessageVariables): string {
  if (usesDefaultMessages(options)) {
    return defaultSms(variables.messageLanguage, { code: variables.code, applicationName: variables.applicationName }, options.webotp);
  }
  const text =
    options.syntax === 'liquid'
      ? renderLiquidTemplate(options.template, variables)
      : renderMessageTemplate(options.template, {
          password: variables.code,
          phoneNumber: variables.phoneNumber,
          applicationName: variables.applicationName,
        });
  return options.webotp ? withDomainBoundCode(text, options.webotp, variables.code) : text;
}

/** A start whose template cannot be rendered sends nothing and says why (the connection's fault). */
export function unrenderableTemplateError(err: LiquidTemplateError): HttpError {
  return new HttpError(400, ErrorCodes.BAD_CONNECTION, `The connection's SMS template could not be rendered: ${err.message}`);
}

/**
 * The delivery request body (spec 2.2): the rendered message, the sender, and the caller when
 * forward_req_info. Per channel: `sms` is messageBody (and the request carries no `channel`, so
 * an older gateway reads it as it always did); `whatsapp` is the default WhatsApp text in the
 * message language (with that `language`) when the connection keeps the shipped template, else
 * the template without the SMS-only domain-bound lines, with the code's digits for a WhatsApp
 * authentication template; `voice` is the spoken text (voiceMessage), its language and the digits.
 */
export function deliveryPayload(
  connection: StoredConnection,
  client: StoredClient,
  phoneNumber: string,
  code: string,
  caller: { ip: string; userAgent: string | undefined; requestLanguage: string | null; messageLanguage: LoginLanguage; send: 'code' | 'link' },
  channel: DeliveryChannel = 'sms',
): DeliveryRequest {
  const { options } = connection;
  const forward = options.forward_req_info === true || options.forward_req_info === 'true';
  const { body, language } = channelMessage(connection, client, phoneNumber, code, caller, channel);
  return {
    recipient: phoneNumber,
    body,
    ...(options.from ? { sender: options.from } : {}),
    ...(forward ? { req: { ip: caller.ip, ...(caller.userAgent ? { 'user-agent': caller.userAgent } : {}) } } : {}),
    ...(channel === 'sms' ? {} : { channel, code, ...(language ? { language } : {}) }),
  };
}

/** The channel's text, and its language when smsauth wrote it (a tenant's template says nothing of its language). */
function channelMessage(
  connection: StoredConnection,
  client: StoredClient,
  phoneNumber: string,
  code: string,
  caller: { requestLanguage: string | null; messageLanguage: LoginLanguage; send: 'code' | 'link' },
  channel: DeliveryChannel,
): { body: string; language?: string } {
  const { options } = connection;
  if (channel === 'voice') {
    const spoken = voiceMessage(code, client.name, caller.messageLanguage, caller.requestLanguage);
    return { body: spoken.text, language: spoken.language };
  }
  if (channel === 'whatsapp' && usesDefaultMessages(options)) {
    return { body: defaultWhatsAppMessage(caller.messageLanguage, { code, applicationName: client.name }), language: caller.messageLanguage };
  }
  try {
    const body = messageBody(channel === 'whatsapp' ? { syntax: options.syntax, template: options.template } : options, {
      code,
      phoneNumber,
      applicationName: client.name,
      connectionName: connection.name,
      requestLanguage: caller.requestLanguage,
      messageLanguage: caller.messageLanguage,
      send: caller.send,
    });
    return { body };
  } catch (err) {
    if (err instanceof LiquidTemplateError) throw unrenderableTemplateError(err);
    throw err;
  }
}
