import { defineOperation, type HttpMethod, type Operation, type OperationBody, type OperationInput, type OperationResponse } from '@smsauth/service-kit';
import { z } from 'zod';
import { managementResponses, type ManagementErrorStatus } from './responses';

/** The path parameters of a record's own operations, `/<group>/:id`. */
export const byId = z.object({ id: z.string() });

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** One management operation: its scope, inputs, answer and the refusals it names besides 401/403. */
export interface ManagementOperationDeclaration<P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined> {
  method: HttpMethod;
  /** Relative to /api/v2, Express form. */
  path: string;
  summary: string;
  scope: string;
  params?: P;
  paramDescriptions?: Record<string, string>;
  query?: Q;
  queryDescriptions?: Record<string, string>;
  body?: B extends z.ZodType ? OperationBody<B> : undefined;
  status: '200' | '201' | '202' | '204';
  response?: Omit<OperationResponse, 'description'>;
  errors: readonly ManagementErrorStatus[];
  handle(input: OperationInput<Parsed<P>, Parsed<Q>, Parsed<B>>): Promise<unknown> | unknown;
}

/** A management operation as the service kit declares it: tag Management, one scope, the shared refusals. */
export function managementOperation<P extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(
  declaration: ManagementOperationDeclaration<P, Q, B>,
): Operation {
  const { scope, status, response, errors, ...rest } = declaration;
  return defineOperation<P, Q, B>({
    ...rest,
    tags: ['Management'],
    scopes: [scope],
    responses: managementResponses(status, response, errors, declaration.body !== undefined),
  });
}
