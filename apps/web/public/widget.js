/*
 * Parley live chat widget. Paste on any page:
 *   <script src="https://YOUR-PARLEY/widget.js" data-token="ACCOUNT-TOKEN" async></script>
 * A launcher bubble opens the light visitor page of this account (`/w/livechat/:token`, no React) in a
 * frame. Everything lives in an open shadow root inside one fixed element: the host page's styles do not
 * reach in, ours do not leak out.
 */
(() => {
  const script = document.currentScript;
  if (!script || window.__parleyWidget) return;
  window.__parleyWidget = true;
  const token = script.getAttribute('data-token') || '';
  const origin = new URL(script.src, location.href).origin;
  const label = script.getAttribute('data-label') || 'Chat with us';
  const color = script.getAttribute('data-color') || '#3b5bdb';

  const host = document.createElement('div');
  host.setAttribute('data-parley-widget', '');
  host.style.cssText = 'all:initial;position:fixed;right:20px;bottom:20px;z-index:2147483647;';
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML = `<style>
:host{all:initial}
*{box-sizing:border-box}
button{all:unset;cursor:pointer;display:flex;align-items:center;justify-content:center;width:56px;height:56px;border-radius:50%;background:${color};color:#fff;box-shadow:0 4px 14px rgba(0,0,0,.25);font:600 24px/1 system-ui,sans-serif}
button:focus-visible{outline:3px solid #fff;outline-offset:2px}
.panel{position:absolute;right:0;bottom:68px;width:min(380px,calc(100vw - 40px));height:min(600px,calc(100vh - 110px));border-radius:12px;overflow:hidden;box-shadow:0 8px 30px rgba(0,0,0,.3);background:#fff;display:none}
.panel.open{display:block}
iframe{border:0;width:100%;height:100%;display:block}
</style><div class="panel" part="panel"></div><button type="button" aria-expanded="false"></button>`;
  const panel = root.querySelector('.panel');
  const button = root.querySelector('button');
  button.setAttribute('aria-label', label);
  button.setAttribute('title', label);
  button.textContent = '\u{1F4AC}';
  let frame = null;
  const setOpen = (open) => {
    if (open && !frame) {
      frame = document.createElement('iframe');
      frame.title = label;
      frame.allow = 'autoplay';
      frame.src = `${origin}/w/livechat/${encodeURIComponent(token)}${location.search.includes('parley_api=false') ? '?api=false' : ''}`;
      panel.appendChild(frame);
    }
    panel.classList.toggle('open', open);
    button.setAttribute('aria-expanded', String(open));
    button.textContent = open ? '\u00D7' : '\u{1F4AC}';
  };
  button.addEventListener('click', () => setOpen(!panel.classList.contains('open')));
  window.addEventListener('message', (e) => {
    if (e.origin === origin && e.data && e.data.parley === 'close') {
      setOpen(false);
      if (frame) {
        frame.remove();
        frame = null;
      }
    }
  });
  const mount = () => document.body.appendChild(host);
  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount);
})();
