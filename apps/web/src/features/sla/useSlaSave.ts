import type { SlaSettings } from '@parley/contracts';
import { useWrite } from '../../lib/useWrite';
import { toast } from '../../ui/toast';
import { S } from './strings';

/**
 * A save from one of the SLA cards: each call answers the account's whole SLA settings, which go to
 * `onSaved` (the cache the three cards read), then "Saved." shows; a refusal is `error`, the server's words.
 */
export function useSlaSave(onSaved: (s: SlaSettings) => void) {
  const { run, busy, error, setError } = useWrite();
  const save = (call: () => Promise<{ data: SlaSettings }>) =>
    run(async () => {
      onSaved((await call()).data);
      toast({ message: S.saved, color: 'green' });
    });
  return { save, busy, error, setError };
}
