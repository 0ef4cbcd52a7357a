/** A few lines of DOM building for the light visitor page (no framework: the widget's budget is 60 kB gzip). */
import { VISITOR_STRINGS as S } from '@parley/contracts/visitor';

type Attrs = Record<string, string | number | boolean | ((e: Event) => void) | undefined>;
type Child = Node | string | null | undefined | false;

/** `h('button', { class: 'btn', onclick }, 'Send')`: attributes, `on*` listeners, text or node children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

let ids = 0;
/** A labelled text input or textarea with its error line below. */
export function field(label: string, value: string, multiline = false) {
  const id = `f${++ids}`;
  const input = multiline
    ? h('textarea', { id, rows: 3, class: 'input' })
    : h('input', { id, type: 'text', class: 'input' });
  input.value = value;
  const error = h('div', { class: 'error', id: `${id}-error` });
  const el = h('div', { class: 'field' }, h('label', { for: id }, label), input, error);
  return {
    el,
    input,
    setError(text: string | undefined) {
      error.textContent = text ?? '';
      input.toggleAttribute('aria-invalid', !!text);
      if (text) input.setAttribute('aria-describedby', error.id);
      else input.removeAttribute('aria-describedby');
    },
  };
}

/** "You have disconnected from server." with its second line (VISITOR-25). */
export const disconnected = () =>
  h('div', { class: 'alert', role: 'alert' }, h('strong', {}, S.disconnected), h('div', {}, S.checkConnection));
