import { SmsProviderErrorDescriptions, type DeliveryRequest } from '@smsauth/contracts';
import type { StoredClient, StoredConnection } from '../../store';
import { GatewayTokenError, signGatewayToken } from './gateway-token';
import { renderMessageTemplate } from './message-template';
import { SmsProviderError } from './sms-gateway';

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

/** The delivery request body (spec 2.2): the rendered template, the sender, and the caller when forward_req_info. */
export function deliveryPayload(
  connection: StoredConnection,
  client: StoredClient,
  phoneNumber: string,
  code: string,
  caller: { ip: string; userAgent: string | undefined },
): DeliveryRequest {
  const { options } = connection;
  const forward = options.forward_req_info === true || options.forward_req_info === 'true';
  return {
    recipient: phoneNumber,
    body: renderMessageTemplate(options.template, { password: code, phoneNumber, applicationName: client.name }),
    ...(options.from ? { sender: options.from } : {}),
    ...(forward ? { req: { ip: caller.ip, ...(caller.userAgent ? { 'user-agent': caller.userAgent } : {}) } } : {}),
  };
}
