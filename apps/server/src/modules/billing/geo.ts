import { createRequire } from 'node:module';

interface GeoIpCountry {
  lookup(ip: string): { country: string } | null;
}

let geo: GeoIpCountry | null = null;

/**
 * PAY-24: the country (ISO 3166 two letters) of an IP address, from the GeoLite2 country database that ships
 * inside the `geoip-country` package (about 8 MB, read once on first use in about 150 ms; nothing is fetched).
 * null for a private, loopback or unknown address: the caller falls back to the default price row.
 */
export function countryOf(ip: string): string | null {
  if (!geo) geo = createRequire(import.meta.url)('geoip-country') as GeoIpCountry;
  try {
    return geo.lookup(ip)?.country ?? null;
  } catch {
    return null;
  }
}
