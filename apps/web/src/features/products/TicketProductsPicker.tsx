import { MultiSelect, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useWrite } from '../../lib/useWrite';
import { productKeys, productsApi } from './api';
import { P } from './strings';

/**
 * The ticket Details panel's "Products": the products this ticket is about, linked and unlinked in place. The
 * catalogue's active products are offered; an archived one the ticket already has stays, marked.
 */
export function TicketProductsPicker({ ticketId }: { ticketId: number }) {
  const qc = useQueryClient();
  const mine = useQuery({ queryKey: productKeys.ofTicket(ticketId), queryFn: () => productsApi.ofTicket(ticketId) });
  const catalogue = useQuery({
    queryKey: productKeys.catalogue,
    queryFn: () => productsApi.list('', 'active', 1, 100),
    staleTime: 60_000,
  });
  const write = useWrite({ invalidate: productKeys.all });
  const data = useMemo(() => {
    const linked = mine.data ?? [];
    const offered = catalogue.data?.data ?? [];
    const ids = new Set(offered.map((p) => p.id));
    return [
      ...offered.map((p) => ({ value: String(p.id), label: p.code ? `${p.name} (${p.code})` : p.name })),
      ...linked
        .filter((p) => !ids.has(p.id))
        .map((p) => ({ value: String(p.id), label: p.active ? p.name : `${p.name} (${P.archived})` })),
    ];
  }, [mine.data, catalogue.data]);
  if (mine.isError) return null;
  const value = (mine.data ?? []).map((p) => String(p.id));
  return (
    <div>
      <MultiSelect
        label={P.picker}
        placeholder={value.length ? undefined : data.length ? P.pickerPlaceholder : P.pickerNone}
        data={data}
        value={value}
        searchable
        clearable
        disabled={write.busy || mine.isPending}
        onChange={(v) =>
          void write.run(async () => {
            const now = await productsApi.setOfTicket(ticketId, v.map(Number));
            qc.setQueryData(productKeys.ofTicket(ticketId), now);
          })
        }
        data-testid="ticket-info-products"
        wrapperProps={{ 'data-testid': 'ticket-info-products-field' }}
      />
      {write.error && (
        <Text c="red" size="xs" role="alert" mt={4}>
          {write.error}
        </Text>
      )}
    </div>
  );
}
