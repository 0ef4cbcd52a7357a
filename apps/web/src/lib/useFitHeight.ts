import { useLayoutEffect, useRef, useState } from 'react';

/**
 * A screen that fills the window from where it starts (below any banners) down to `bottom` pixels above the
 * window's foot (the bottom tabs on a phone); at least 360 px. Banners above come and go: it follows them.
 */
export function useFitHeight(bottom: number) {
  const box = useRef<HTMLDivElement>(null);
  const [height, setHeight] = useState<number | string>('calc(100dvh - 140px)');
  useLayoutEffect(() => {
    const fit = () => {
      const el = box.current;
      if (!el) return;
      const top = el.getBoundingClientRect().top + window.scrollY;
      setHeight(Math.max(360, Math.floor(window.innerHeight - top - bottom - 16)));
    };
    fit();
    window.addEventListener('resize', fit);
    const above = box.current?.parentElement;
    const ro = typeof ResizeObserver === 'undefined' || !above ? null : new ResizeObserver(fit);
    for (const sib of above ? Array.from(above.children) : []) if (sib !== box.current) ro?.observe(sib);
    return () => {
      window.removeEventListener('resize', fit);
      ro?.disconnect();
    };
  }, [bottom]);
  return { box, height };
}
