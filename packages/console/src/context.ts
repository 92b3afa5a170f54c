import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { IdentityApi } from './api';
import type { ConsoleSettings, Operator } from './auth';

export interface ConsoleContext {
  api: IdentityApi;
  operator: Operator;
  settings: ConsoleSettings;
}

export const Console = createContext<ConsoleContext | undefined>(undefined);

export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (!value) throw new Error('useConsole outside the signed-in console');
  return value;
}

/** Whether the operator's token carries `scope` (the API decides anyway; the UI hides what it would refuse). */
export function useCan(): (scope: string) => boolean {
  const { operator } = useConsole();
  return (scope) => operator.scopes.has(scope);
}
