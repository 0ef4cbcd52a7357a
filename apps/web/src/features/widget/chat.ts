import type { LiveChatInfoAnswer, VisitorMessage } from '@parley/contracts';
import { VISITOR_STRINGS as S } from '@parley/contracts/visitor';
import { mergeMessages, openVisitorSocket, queueId } from '../../lib/visitorSocket';
import { disconnected, h } from './dom';

/**
 * VISITOR-04, VISITOR-10 (design): the running chat, as the React `VisitorChatPage`. Plain text both ways
 * (set as text, never as HTML). Messages typed while the network is away wait (shown as sending) and go
 * out, once each, when it is back; after every reconnect the history is read again, so nothing sent to
 * the visitor in between is lost. When the chat ends, `back` runs the info call again (the rating view).
 */
export function showChat(token: string, info: LiveChatInfoAnswer, back: () => void): void {
  const root = document.getElementById('app') as HTMLElement;
  let messages: VisitorMessage[] = [];
  let pending: VisitorMessage[] = [];
  let left = false;
  const list = h('div', { class: 'messages', 'data-testid': 'visitor-messages' });
  const alert = h('div');
  const input = h('input', {
    type: 'text',
    class: 'input',
    'aria-label': S.typeMessage,
    placeholder: S.typeMessage,
    maxlength: 4000,
    onkeydown: (e) => (e as KeyboardEvent).key === 'Enter' && send(),
  });
  const s = openVisitorSocket(token, info.csrf);
  root.replaceChildren(h('div', { class: 'center' }, h('div', { class: 'card' }, h('p', {}, S.pleaseWait))));

  const leave = () => {
    if (left) return;
    left = true;
    s.close();
    back();
  };
  const draw = () => {
    list.replaceChildren(
      ...messages.map((m) => {
        const mine = m.sender === 'visitor';
        return h(
          'div',
          { class: mine ? 'row mine' : 'row', 'data-testid': 'visitor-message' },
          h(
            'div',
            { class: m.id > 0 ? 'bubble' : 'bubble pending' },
            !mine && h('div', { class: 'sender' }, m.senderName),
            h('div', { class: 'text', 'data-sent': m.id > 0 ? 'yes' : 'no' }, m.message),
          ),
        );
      }),
    );
    list.scrollTop = list.scrollHeight;
  };
  const add = (more: VisitorMessage[]) => {
    messages = mergeMessages(messages, more);
    draw();
  };
  const emit = (m: VisitorMessage) =>
    s.emit('visitorMessage', { message: m.message, clientId: m.clientId ?? undefined }, (a) => {
      if (!a.ok) return;
      pending = pending.filter((p) => p.clientId !== m.clientId);
      add([a.data]);
    });
  function send() {
    const message = input.value.trim();
    if (!message) return;
    const m: VisitorMessage = {
      id: -Date.now(),
      ticketId: 0,
      sender: 'visitor',
      senderName: '',
      type: 'text',
      message,
      ts: Date.now(),
      clientId: queueId(),
    };
    pending.push(m);
    add([m]);
    input.value = '';
    if (s.connected) emit(m);
  }

  let shown = false;
  const showChatView = () => {
    if (shown) return;
    shown = true;
    root.replaceChildren(
      h(
        'div',
        { class: 'chat' },
        info.name && h('div', { class: 'company' }, info.name),
        alert,
        list,
        h('div', { class: 'composer' }, input, h('button', { type: 'button', class: 'btn', onclick: send }, S.send)),
      ),
    );
    draw();
  };
  const setDown = (down: boolean) => {
    alert.replaceChildren(...(down ? [disconnected()] : []));
    if (down) showChatView();
  };
  s.on('connect', () => {
    setDown(false);
    s.emit('visitorHistory', (r) => {
      if (!r.ok) return;
      if (r.state === 'ended' || r.state === 'converted') return leave();
      showChatView();
      add(r.data);
      for (const m of pending) emit(m);
    });
  });
  s.on('disconnect', () => setDown(true));
  s.on('connect_error', () => setDown(true));
  s.on('newMessage', (e) => add([e.data.message]));
  s.on('liveChatEnded', leave);
}
