/** A User-Agent in a few words ("Chrome 131 on Windows"); the raw text when nothing is recognised. */
export function browserName(ua: string): string {
  if (!ua.trim()) return '';
  const v = (re: RegExp) => re.exec(ua)?.[1]?.split('.')[0];
  const browser =
    (v(/Edg\/([\d.]+)/) && `Edge ${v(/Edg\/([\d.]+)/)}`) ||
    (v(/OPR\/([\d.]+)/) && `Opera ${v(/OPR\/([\d.]+)/)}`) ||
    (v(/Firefox\/([\d.]+)/) && `Firefox ${v(/Firefox\/([\d.]+)/)}`) ||
    (v(/Chrome\/([\d.]+)/) && `Chrome ${v(/Chrome\/([\d.]+)/)}`) ||
    (/Safari\//.test(ua) && v(/Version\/([\d.]+)/) && `Safari ${v(/Version\/([\d.]+)/)}`) ||
    '';
  const os = /Windows/.test(ua)
    ? 'Windows'
    : /Android/.test(ua)
      ? 'Android'
      : /iPhone|iPad/.test(ua)
        ? 'iOS'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : '';
  if (!browser) return ua;
  return os ? `${browser} on ${os}` : browser;
}
