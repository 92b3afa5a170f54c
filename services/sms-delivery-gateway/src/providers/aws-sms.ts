import type { PinpointSMSVoiceV2Client, PinpointSMSVoiceV2ClientConfig } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { PhoneNumberSchema } from '@smsauth/contracts';
import { env } from '@smsauth/service-kit';
import { z } from 'zod';
import { defineProvider, describeTransportFailure, scrubSecrets, timeoutMs, type ProviderDependencies, type ProviderSettings } from './provider';
import { readSnsEvent } from './aws-sms-events';
import { SnsCertificates } from './sns-certificates';
import { ALPHANUMERIC_SENDER_ID } from '../domain/sender-id';
import { ProviderError, type SmsProvider } from '../domain/sms-provider';

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const ACCESS_KEY_ID = /^(AKIA|ASIA)[A-Z0-9]{16}$/;
/** A phone number, pool or sender id resource id, or the ARN of one (SendTextMessage's OriginationIdentity). */
const ORIGINATION_RESOURCE = /^((phone|pool|senderid)-[0-9a-zA-Z]{1,64}|arn:aws[a-z-]*:sms-voice:[a-z0-9-]+:\d{12}:[a-z-]+\/.+)$/;
const CONFIGURATION_SET = /^([A-Za-z0-9_-]{1,64}|arn:aws[a-z-]*:sms-voice:[a-z0-9-]+:\d{12}:configuration-set\/[A-Za-z0-9_-]{1,64})$/;
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

/** The Context key carrying the gateway's message id to the delivery events. */
export const AWS_SMS_CONTEXT_MESSAGE_ID = 'gateway_message_id';

/** An http(s) URL, or unset (an empty value counts as unset). */
const optionalUrl = () => z.preprocess((value) => (value === '' ? undefined : value), env.url().optional());

/** The aws-sms provider's variables. */
const settingsSchema = z.object({
  AWS_SMS_REGION: env
    .optionalString()
    .pipe(z.string().regex(REGION, { message: 'must be an AWS region such as eu-west-1' }).optional())
    .meta({ description: 'AWS region of the End User Messaging SMS resources (origination identities, configuration set); required for `aws-sms`.' }),
  AWS_SMS_ACCESS_KEY_ID: env
    .optionalString()
    .pipe(z.string().regex(ACCESS_KEY_ID, { message: 'must be an AWS access key id (AKIA or ASIA and 16 capitals or digits)' }).optional())
    .meta({
      description:
        "Explicit access key id (with `AWS_SMS_SECRET_ACCESS_KEY`). Unset: the AWS SDK's standard credential chain (its own `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE` and `~/.aws` files, web identity, ECS or EC2 instance role).",
    }),
  AWS_SMS_SECRET_ACCESS_KEY: env.optionalString().meta({ secret: true, description: 'Secret access key of `AWS_SMS_ACCESS_KEY_ID`. Never logged.' }),
  AWS_SMS_SESSION_TOKEN: env.optionalString().meta({ secret: true, description: 'Session token of temporary explicit keys (`ASIA...`). Never logged.' }),
  AWS_SMS_ORIGINATION_IDENTITY: env
    .optionalString()
    .meta({
      description:
        "Sender, sent as `OriginationIdentity`: an E.164 number of the account, an alphanumeric sender id (1-11 letters, digits and spaces; registered where the country asks), a phone number, pool or sender id resource id (`phone-...`, `pool-...`, `senderid-...`) or its ARN. Unset: AWS picks one of the account's. A route's `sender` replaces it; the request's `sender` is not used.",
    }),
  AWS_SMS_CONFIGURATION_SET: env
    .optionalString()
    .pipe(z.string().regex(CONFIGURATION_SET, { message: 'must be a configuration set name (1-64 letters, digits, _ and -) or its ARN' }).optional())
    .meta({ description: 'Configuration set name or ARN, sent as `ConfigurationSetName`: its event destinations get the delivery events (required for receipts).' }),
  AWS_SMS_SNS_TOPIC_ARN: env
    .optionalString()
    .pipe(z.string().regex(SNS_TOPIC_ARN, { message: 'must be an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>)' }).optional())
    .meta({
      description:
        'The SNS topic of the configuration set\'s event destination. With `GATEWAY_PUBLIC_URL`, turns delivery receipts on: subscribe `{GATEWAY_PUBLIC_URL}/receipts/aws-sms` (HTTPS, raw message delivery off); only SNS messages of this topic with a valid SNS signature are accepted, and its subscription confirmation is confirmed.',
    }),
  AWS_SMS_ENDPOINT: optionalUrl().meta({ description: 'Endpoint override (a VPC endpoint, or tests: a local imitation). Unset: the SDK\'s endpoint of the region.' }),
  AWS_SMS_TIMEOUT_MS: timeoutMs(10_000).meta({
    description: "Time AWS has to answer (100..120000), with one attempt (the gateway's failover retries elsewhere); keep it under the identity service's 30 s delivery timeout.",
  }),
  AWS_SMS_TEST_ONLY_SNS_ORIGIN: optionalUrl().meta({
      description:
        'Tests only (refused in production): an origin whose SNS certificate and subscription URLs are trusted besides https://sns.<region>.amazonaws.com, so a local imitation of SNS can sign receipts.',
    }),
});

type AwsSmsSettings = ProviderSettings<typeof settingsSchema>;

/**
 * SendTextMessage's exceptions ("Errors" of the API reference and each exception's `Reason`)
 * and whether another provider may deliver the message (`transient`: fail over) or the message
 * itself is refused. `Exception:REASON` is looked up first, then the exception. This account's
 * limits, credentials and setup (quota, spend limit, sender registration, origination identity,
 * configuration set, countries not enabled) fail over: another provider has its own. The
 * recipient's opt-out, the operator's own protect configuration and a malformed number or text
 * refuse the message. A name not listed is decided by the HTTP status.
 */
export const AWS_SMS_ERRORS: Readonly<Record<string, { meaning: string; transient: boolean }>> = {
  ThrottlingException: { meaning: 'Too many requests', transient: true },
  InternalServerException: { meaning: 'AWS internal error', transient: true },
  ServiceQuotaExceededException: { meaning: 'A quota or spend limit of this account', transient: true },
  AccessDeniedException: { meaning: 'Not allowed (credentials, policy, account disabled)', transient: true },
  ResourceNotFoundException: { meaning: 'Origination identity or configuration set not found', transient: true },
  ConflictException: { meaning: 'A resource of this account is not usable', transient: true },
  'ConflictException:DESTINATION_PHONE_NUMBER_OPTED_OUT': { meaning: 'The recipient opted out', transient: false },
  'ConflictException:DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION': { meaning: "The operator's protect configuration blocks the country", transient: false },
  'ConflictException:DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE': { meaning: "The operator's protect configuration blocks the number", transient: false },
  ValidationException: { meaning: 'The message was refused as invalid', transient: false },
  'ValidationException:CANNOT_PARSE': { meaning: 'The destination number cannot be parsed', transient: false },
  'ValidationException:MAXIMUM_SIZE_EXCEEDED': { meaning: 'The message is too long', transient: false },
  'ValidationException:DESTINATION_COUNTRY_BLOCKED': { meaning: 'This account does not send to the country', transient: true },
  'ValidationException:COUNTRY_NOT_ENABLED': { meaning: 'The country is not enabled for this account', transient: true },
  'ValidationException:INTERNATIONAL_SENDING_NOT_SUPPORTED': { meaning: 'The origination identity cannot send abroad', transient: true },
  'ValidationException:INVALID_IDENTITY_FOR_DESTINATION_COUNTRY': { meaning: 'The origination identity cannot send to the country', transient: true },
  'ValidationException:SENDER_ID_NOT_REGISTERED': { meaning: 'The sender id is not registered', transient: true },
  'ValidationException:SENDER_ID_NOT_SUPPORTED': { meaning: 'The country does not support sender ids', transient: true },
  'ValidationException:SENDER_ID_REQUIRES_REGISTRATION': { meaning: 'The sender id must be registered first', transient: true },
  'ValidationException:PRICE_OVER_THRESHOLD': { meaning: 'Over the maximum price', transient: true },
  'ValidationException:INVALID_ARN': { meaning: 'An ARN of the setup is invalid', transient: true },
  'ValidationException:RESOURCE_NOT_ACCESSIBLE': { meaning: 'A resource of the setup is not accessible', transient: true },
  'ValidationException:CHANNEL_NOT_ENABLED': { meaning: 'SMS is not enabled for the origination identity', transient: true },
};

/** Whether another provider may deliver a message AWS refused this way; undefined when the exception is not in the table. */
export function awsSmsErrorIsTransient(name: string, reason: string | undefined): boolean | undefined {
  return (reason !== undefined ? AWS_SMS_ERRORS[`${name}:${reason}`] : undefined)?.transient ?? AWS_SMS_ERRORS[name]?.transient;
}

/**
 * AWS End User Messaging SMS (the successor of Pinpoint SMS): `SendTextMessage` through the
 * official AWS SDK v3 client, MessageType TRANSACTIONAL, the gateway's message id in `Context`
 * (delivery events carry it back). Chosen over SNS `Publish` to a number: SendTextMessage names
 * the origination identity and configuration set per message, and only it streams per-message
 * delivery events (SNS SMS reports go to CloudWatch Logs only). AWS picks GSM-7 or UCS-2 from
 * the UTF-8 text itself. Channels: SMS only here (voice is SendVoiceMessage, not used).
 */
export const awsSmsProvider = defineProvider({
  name: 'aws-sms',
  settingsSchema,
  secrets: ['AWS_SMS_SECRET_ACCESS_KEY', 'AWS_SMS_SESSION_TOKEN'],
  rules(settings, { selected, production, problem, required }) {
    if (selected) required('AWS_SMS_REGION');
    if ((settings.AWS_SMS_ACCESS_KEY_ID === undefined) !== (settings.AWS_SMS_SECRET_ACCESS_KEY === undefined)) {
      problem(settings.AWS_SMS_ACCESS_KEY_ID === undefined ? 'AWS_SMS_ACCESS_KEY_ID' : 'AWS_SMS_SECRET_ACCESS_KEY', 'AWS_SMS_ACCESS_KEY_ID and AWS_SMS_SECRET_ACCESS_KEY go together (or set neither to use the AWS credential chain)');
    }
    if (settings.AWS_SMS_SESSION_TOKEN !== undefined && settings.AWS_SMS_ACCESS_KEY_ID === undefined) {
      problem('AWS_SMS_SESSION_TOKEN', 'needs AWS_SMS_ACCESS_KEY_ID and AWS_SMS_SECRET_ACCESS_KEY');
    }
    const identity = settings.AWS_SMS_ORIGINATION_IDENTITY;
    if (identity !== undefined && !PhoneNumberSchema.safeParse(identity).success && !ALPHANUMERIC_SENDER_ID.test(identity) && !ORIGINATION_RESOURCE.test(identity)) {
      problem(
        'AWS_SMS_ORIGINATION_IDENTITY',
        'must be an E.164 number like +12065550152, an alphanumeric sender id of 1-11 letters, digits and spaces, a phone-/pool-/senderid- id or an sms-voice ARN',
      );
    }
    if (settings.AWS_SMS_SNS_TOPIC_ARN !== undefined && settings.AWS_SMS_CONFIGURATION_SET === undefined) {
      problem('AWS_SMS_SNS_TOPIC_ARN', 'delivery events come from a configuration set: set AWS_SMS_CONFIGURATION_SET to the one whose event destination is this topic');
    }
    if (production && settings.AWS_SMS_TEST_ONLY_SNS_ORIGIN !== undefined) {
      problem('AWS_SMS_TEST_ONLY_SNS_ORIGIN', 'is for tests only and is refused in production: it trusts SNS certificates from another origin');
    }
  },
  create: (settings, deps) => createAwsSmsSender(settings, deps),
});

interface AwsError {
  name?: unknown;
  message?: unknown;
  Reason?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

function createAwsSmsSender(settings: AwsSmsSettings, deps: ProviderDependencies): SmsProvider {
  const { name, clock } = deps;
  const timeout = settings.AWS_SMS_TIMEOUT_MS;
  const secrets = [settings.AWS_SMS_SECRET_ACCESS_KEY, settings.AWS_SMS_SESSION_TOKEN];
  const clientConfig: PinpointSMSVoiceV2ClientConfig = {
    region: settings.AWS_SMS_REGION ?? '',
    ...(settings.AWS_SMS_ENDPOINT !== undefined ? { endpoint: settings.AWS_SMS_ENDPOINT } : {}),
    ...(settings.AWS_SMS_ACCESS_KEY_ID !== undefined && settings.AWS_SMS_SECRET_ACCESS_KEY !== undefined
      ? {
          credentials: {
            accessKeyId: settings.AWS_SMS_ACCESS_KEY_ID,
            secretAccessKey: settings.AWS_SMS_SECRET_ACCESS_KEY,
            ...(settings.AWS_SMS_SESSION_TOKEN !== undefined ? { sessionToken: settings.AWS_SMS_SESSION_TOKEN } : {}),
          },
        }
      : {}),
    // One attempt: the route's next provider is the retry, within identity's delivery timeout.
    maxAttempts: 1,
    // throwOnRequestTimeout: without it the SDK only warns and keeps waiting past requestTimeout.
    requestHandler: { requestTimeout: timeout, connectionTimeout: timeout, throwOnRequestTimeout: true },
  };
  // Loaded on first use: the SDK adds about 0.2 s and 17 MB to a gateway start that never sends through AWS.
  let sdk: Promise<{ client: PinpointSMSVoiceV2Client; SendTextMessageCommand: typeof import('@aws-sdk/client-pinpoint-sms-voice-v2').SendTextMessageCommand }> | undefined;
  const loadSdk = () =>
    (sdk ??= import('@aws-sdk/client-pinpoint-sms-voice-v2').then((module) => ({
      client: new module.PinpointSMSVoiceV2Client(clientConfig),
      SendTextMessageCommand: module.SendTextMessageCommand,
    })));
  const fail = (description: string, details: ProviderError['details'] = {}) => new ProviderError(name, scrubSecrets(description, secrets), details);

  const provider: SmsProvider = {
    name,
    async send(message) {
      if (message.channel !== 'sms') throw fail(`AWS End User Messaging sends SMS only here, not ${message.channel}`);
      const origination = message.routeSender ?? settings.AWS_SMS_ORIGINATION_IDENTITY;
      const { client, SendTextMessageCommand } = await loadSdk();
      const command = new SendTextMessageCommand({
        DestinationPhoneNumber: message.recipient,
        MessageBody: message.body,
        MessageType: 'TRANSACTIONAL',
        Context: { [AWS_SMS_CONTEXT_MESSAGE_ID]: message.id },
        ...(origination !== undefined ? { OriginationIdentity: origination } : {}),
        ...(settings.AWS_SMS_CONFIGURATION_SET !== undefined ? { ConfigurationSetName: settings.AWS_SMS_CONFIGURATION_SET } : {}),
      });
      try {
        const result = await client.send(command);
        return result.MessageId !== undefined ? { providerMessageId: result.MessageId } : {};
      } catch (err) {
        throw awsFailure(err as AwsError, timeout, fail);
      }
    },
  };
  const topicArn = settings.AWS_SMS_SNS_TOPIC_ARN;
  if (topicArn !== undefined) {
    const certificates = new SnsCertificates(deps.http, timeout);
    const testOnlyOrigin = settings.AWS_SMS_TEST_ONLY_SNS_ORIGIN;
    provider.readReceipt = (request) =>
      readSnsEvent(request, { topicArn, certificates, http: deps.http, now: clock.now(), contextKey: AWS_SMS_CONTEXT_MESSAGE_ID, ...(testOnlyOrigin !== undefined ? { testOnlyOrigin } : {}) });
  }
  return provider;
}

/** A ProviderError from what the SDK threw: a modelled AWS exception, or no answer at all. */
function awsFailure(err: AwsError, timeout: number, fail: (description: string, details?: ProviderError['details']) => ProviderError): ProviderError {
  const status = typeof err.$metadata?.httpStatusCode === 'number' ? err.$metadata.httpStatusCode : undefined;
  const errorName = typeof err.name === 'string' ? err.name : 'Error';
  if (status === undefined) {
    const what = errorName === 'TimeoutError' ? `no answer within ${timeout} ms` : describeTransportFailure(err, timeout);
    return fail(`AWS End User Messaging request failed: ${what}`);
  }
  const reason = typeof err.Reason === 'string' ? err.Reason : undefined;
  const text = typeof err.message === 'string' && err.message !== '' && err.message !== 'UnknownError' ? err.message : 'no error message';
  const transient = awsSmsErrorIsTransient(errorName, reason) ?? (err.$fault === 'server' ? true : undefined);
  return fail(`AWS ${errorName}${reason !== undefined ? ` (${reason})` : ''} (HTTP ${status}): ${text}`, {
    status,
    code: reason !== undefined ? `${errorName}:${reason}` : errorName,
    ...(transient !== undefined ? { transient } : {}),
  });
}
