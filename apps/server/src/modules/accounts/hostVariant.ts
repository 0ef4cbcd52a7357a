import type { HostVariant } from '@parley/contracts';

const TITLES: Record<HostVariant, string> = {
  support: 'Parley Support',
  trading: 'Parley Trading',
  combined: 'Parley',
};

/** The host-to-variant map is configuration; an unknown host (and localhost) is combined. */
export function variantFor(map: Record<string, HostVariant>, hostHeader: string | undefined): HostVariant {
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '');
  return map[host] ?? 'combined';
}

export const productTitle = (v: HostVariant) => TITLES[v];
