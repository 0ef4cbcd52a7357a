import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText } from './http';

/**
 * A write from a card or a form, through TanStack's `useMutation`: `run(call)` clears the error, makes the
 * call, refetches `invalidate` (when given) and resolves true; a failure becomes `error` (the server's
 * description, else `fallback`) and resolves false. `busy` is true while a write runs; `setError` lets
 * the form show its own checks in the same place.
 */
export function useWrite(opts: { invalidate?: QueryKey; fallback?: string } = {}) {
  const qc = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: (call: () => Promise<unknown>) => call(),
    onMutate: () => setError(null),
    onSuccess: async () => {
      if (opts.invalidate) await qc.invalidateQueries({ queryKey: opts.invalidate });
    },
    onError: (err) => setError(errorText(err, opts.fallback)),
  });
  const run = (call: () => Promise<unknown>): Promise<boolean> =>
    m.mutateAsync(call).then(
      () => true,
      () => false,
    );
  return { run, busy: m.isPending, error, setError };
}
