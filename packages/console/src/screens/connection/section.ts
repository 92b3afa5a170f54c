import { useState } from 'preact/hooks';
import { ok } from '../../api';
import type { Confirmation } from '../../components/ui';
import { useConsole } from '../../context';
import type { Connection } from '../fraud-data';

/** What each part of a connection's page gets from the page. */
export interface SectionProps {
  connection: Connection;
  /** The page's one confirmation dialog. */
  confirm: (c: Confirmation) => void;
  /** Loads the connection again after a change was applied. */
  reload: () => void;
  canUpdate: boolean;
}

/** The answer to a PATCH: the record, with `warnings` when the delivery settings probably fail. */
export type UpdatedConnection = Connection & { warnings?: string[] };

/**
 * PATCHes the connection and keeps the API's refusal, so each field shows its part of it beside
 * the field (the dialog shows it whole as well); `saved` announces a change beside the part's
 * button, where the operator is, and reloads the connection.
 */
export function usePatch(
  connection: Connection,
  reload: () => void,
): { refusal: unknown; patch: (body: Record<string, unknown>) => Promise<UpdatedConnection>; notice: string; saved: (message: string) => void } {
  const { api } = useConsole();
  const [refusal, setRefusal] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const patch = async (body: Record<string, unknown>) => {
    try {
      const answer = await ok(api.PATCH('/api/v2/connections/{id}', { params: { path: { id: connection.id } }, body: body }));
      setRefusal(undefined);
      return answer;
    } catch (err) {
      setRefusal(err);
      throw err;
    }
  };
  const saved = (message: string) => {
    setNotice(message);
    reload();
  };
  return { refusal, patch, notice, saved };
}

export const inputValue = (e: Event) => (e.target as HTMLInputElement).value;
