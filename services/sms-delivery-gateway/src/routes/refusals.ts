import { OAuthErrorBodySchema } from '@smsauth/contracts';
import type { OperationResponse } from '@smsauth/service-kit';

/** The component every refusal's body refers to (domain/openapi.ts publishes it). */
const ERROR_BODY_COMPONENT = 'ErrorBody';

/** A documented refusal: `{error, error_description, details?}` (built in domain/errors.ts). */
export const refusal = (description: string): OperationResponse => ({ description, schema: OAuthErrorBodySchema, component: ERROR_BODY_COMPONENT });
