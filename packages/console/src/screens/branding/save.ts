import { useState } from 'preact/hooks';
import type { Change } from './branding-data';

/**
 * Runs a save and keeps the API's refusal, so each field shows its part beside the field (the
 * dialog shows it whole too); `saved` announces the change beside the form's button.
 */
export function useSave(): { refusal: unknown; save: <T>(run: () => Promise<T>) => Promise<T>; notice: string; saved: (message: string) => void } {
  const [refusal, setRefusal] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const save = async <T,>(run: () => Promise<T>) => {
    try {
      const answer = await run();
      setRefusal(undefined);
      return answer;
    } catch (err) {
      setRefusal(err);
      throw err;
    }
  };
  return { refusal, save, notice, saved: setNotice };
}

/** A change in words for the confirmation: the field, what it was and what it becomes. */
export function changeSentence({ field, from, to }: Change): string {
  if (!from) return `${field}: ${to} (none now)`;
  if (!to) return `${field}: removed (now ${from})`;
  return `${field}: ${to} (now ${from})`;
}
