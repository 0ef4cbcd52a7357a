import { Alert, Button, Center, Paper, Rating, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import {
  type LiveChatInfoAnswer,
  VISITOR_STRINGS as S,
  TRANSCRIPT_STRINGS as T,
  type TranscriptSentAnswer,
} from '@parley/contracts';
import { useEffect, useReducer, useRef, useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { api } from '../../lib/http';
import {
  autoSubmits,
  initialVisitorState,
  ratingProblem,
  registerBody,
  VISITOR_FIELDS,
  type VisitorField,
  type VisitorView,
  valuesFromLink,
  visitorReducer,
} from '../../lib/visitorFlow';
import { chime, openVisitorSocket, storedCsrf, type VisitorSocket } from '../../lib/visitorSocket';

type View = VisitorView;
const FIELDS = VISITOR_FIELDS;
type Field = VisitorField;

export function Frame({ children }: { children: React.ReactNode }) {
  return (
    <Center mih="100dvh" p="md">
      {/* Inside the widget's frame the panel is the card already: no second border. */}
      <Paper withBorder={window.parent === window} p="lg" w="100%" maw={420}>
        <Stack>{children}</Stack>
      </Paper>
    </Center>
  );
}

export function Disconnected() {
  return (
    <Alert color="red" role="alert" title={S.disconnected}>
      {S.checkConnection}
    </Alert>
  );
}

/** VISITOR-02: `/register/livechat/:token`: start form, queue waiting view, rating view. */
export function VisitorRegisterPage() {
  const { token = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [state, dispatch] = useReducer(visitorReducer, initialVisitorState);
  const view = state.view;
  const [info, setInfo] = useState<LiveChatInfoAnswer | null>(null);
  const [values, setValues] = useState<Record<Field, string>>(() => valuesFromLink(params));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [down, setDown] = useState(false);
  const socket = useRef<VisitorSocket | null>(null);
  const autoSubmitted = useRef(false);
  const offlineForced = params.get('api') === 'false';
  const prefilled = { name: params.has('name'), phone: params.has('phone'), email: params.has('email') };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the info call runs once per link
  useEffect(() => {
    let gone = false;
    api<LiveChatInfoAnswer>('POST', '/api/livechat/info', { token, csrf: storedCsrf.get(token) })
      .then((r) => {
        if (gone) return;
        storedCsrf.set(token, r.csrf);
        setInfo(r);
        dispatch({ type: 'info', answer: r, offlineForced });
        if (r.result === 'success' && r.ticket_id) return navigate(`/start/livechat/${token}`, { replace: true });
        if (r.result === 'success' && r.queued) return join(r.csrf);
        if (r.result === 'closed') storedCsrf.clear(token);
      })
      .catch(() => !gone && dispatch({ type: 'infoFailed' }));
    return () => {
      gone = true;
      socket.current?.close();
    };
  }, [token]);

  function join(csrf: string, form?: Record<Field, string>) {
    dispatch({ type: 'join' });
    const s = socket.current ?? openVisitorSocket(token, csrf);
    socket.current = s;
    s.off();
    s.on('connect', () => {
      setDown(false);
      s.emit(
        'registerQueue',
        { token, csrf, ...(form ?? values), ic: params.get('ic') ?? undefined, page: document.referrer.slice(0, 1000) },
        (r) => {
          if (!r.ok) return console.warn('registerQueue', r.error);
          dispatch({ type: 'queueNumber', place: r.queue || null });
          if (r.ticket_id) accepted(csrf);
        },
      );
    });
    s.on('disconnect', () => setDown(true));
    s.on('connect_error', () => setDown(true));
    s.on('queueNumber', (n) => dispatch({ type: 'queueNumber', place: n }));
    s.on('queueAccepted', () => accepted(csrf));
  }

  async function accepted(csrf: string) {
    chime();
    dispatch({ type: 'accepted' });
    try {
      await api('POST', '/api/livechat/register', registerBody(csrf, token, values, params.get('ic') ?? undefined));
    } catch (err) {
      console.warn('register', err); // VISITOR-34: logged only
    }
    setTimeout(() => {
      socket.current?.close();
      navigate(`/start/livechat/${token}`);
    }, 2000);
  }

  function check(): boolean {
    const e: Partial<Record<Field, string>> = {};
    for (const f of FIELDS) if (values[f].trim() === '') e[f] = S.empty;
    setErrors(e);
    return Object.keys(e).length === 0;
  }
  async function submit(offline: boolean) {
    if (!check() || !info) return;
    if (!offline) return join(info.csrf);
    try {
      await api(
        'POST',
        '/api/livechat/register?api=false',
        registerBody(info.csrf, token, values, params.get('ic') ?? undefined),
      );
      dispatch({ type: 'offlineSent' });
    } catch (err) {
      console.warn('register', err);
    }
  }

  // VISITOR-26: all of name, phone, email and reason given: submit at once.
  useEffect(() => {
    if (autoSubmitted.current || !info) return;
    if (autoSubmits(view, values, params)) {
      autoSubmitted.current = true;
      void submit(view === 'offline');
    }
  });

  const input = (f: Field, label: string) =>
    f === 'message' ? (
      <Textarea
        key={f}
        label={label}
        value={values[f]}
        error={errors[f]}
        autosize
        minRows={3}
        onChange={(e) => setValues({ ...values, [f]: e.currentTarget.value })}
      />
    ) : (
      <TextInput
        key={f}
        label={label}
        value={values[f]}
        error={errors[f]}
        onChange={(e) => setValues({ ...values, [f]: e.currentTarget.value })}
      />
    );
  const heading = info?.name ? <Text fw={600}>{info.name}</Text> : null;

  if (view === 'loading' || view === 'chat')
    return (
      <Frame>
        <Text>{S.pleaseWait}</Text>
      </Frame>
    );
  if (view === 'invalid')
    return (
      <Frame>
        <Title order={1} size="h3">
          {S.invalidLink}
        </Title>
        <Text>{S.invalidLinkBody}</Text>
      </Frame>
    );
  if (view === 'start')
    return (
      <Frame>
        {heading}
        <Title order={1} size="h3">
          {S.welcome}
        </Title>
        <Text>{S.welcomeBody}</Text>
        <Button onClick={() => dispatch({ type: 'continue' })}>{S.continue}</Button>
      </Frame>
    );
  if (view === 'form')
    return (
      <Frame>
        {heading}
        {input('name', S.name)}
        {input('phone', S.phone)}
        {input('email', S.email)}
        {input('message', S.message)}
        <Button onClick={() => submit(false)}>{S.connect}</Button>
      </Frame>
    );
  if (view === 'offline')
    return (
      <Frame>
        {heading}
        <Text>{S.offline}</Text>
        {/* The message, plus whichever of name, phone and email no query parameter gave. */}
        {!prefilled.name && input('name', S.name)}
        {!prefilled.phone && input('phone', S.phone)}
        {!prefilled.email && input('email', S.email)}
        {input('message', S.message)}
        <Button onClick={() => submit(true)}>{S.submit}</Button>
      </Frame>
    );
  if (view === 'offlineSent')
    return (
      <Frame>
        <Text>{S.offlineSent}</Text>
      </Frame>
    );
  if (view === 'queue')
    return (
      <Frame>
        {heading}
        {down && <Disconnected />}
        <Text size="lg" data-testid="visitor-queue">
          {state.accepted ? S.accepted : state.place ? S.queueNumber(state.place) : S.waiting}
        </Text>
      </Frame>
    );
  return <RatingView token={token} csrf={info?.csrf ?? ''} view={view} transcript={info?.transcript === true} />;
}

/** VISITOR-16, VISITOR-17, VISITOR-36..41: "converted" / "rating" show the stars; "closed" does not. */
function RatingView({
  token,
  csrf,
  view,
  transcript,
}: {
  token: string;
  csrf: string;
  view: View;
  transcript: boolean;
}) {
  const navigate = useNavigate();
  const [rating, setRating] = useState(0);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const converted = view === 'converted';
  async function send() {
    const problem = ratingProblem(rating, reason, S);
    setError(problem);
    if (problem) return;
    try {
      await api('POST', '/api/livechat/rate', { _token: csrf, token, rating, reason });
      storedCsrf.clear(token);
      navigate('/end/livechat');
    } catch (err) {
      setError((err as Error).message);
    }
  }
  return (
    <Frame>
      <Title order={1} size="h3">
        {converted ? S.convertedTitle : S.endedTitle}
      </Title>
      <Text>{converted ? S.convertedBody : S.endedBody}</Text>
      {transcript && <SendTranscript token={token} csrf={csrf} />}
      {view !== 'closed' && (
        <>
          <Text fw={500}>{S.rateTitle}</Text>
          <Rating value={rating} onChange={setRating} count={5} size="lg" aria-label={S.rateTitle} />
          <Textarea label={S.reason} value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
          {error && (
            <Text c="red" role="alert">
              {error}
            </Text>
          )}
          <Button onClick={send}>{S.submit}</Button>
        </>
      )}
    </Frame>
  );
}

/** PLAN-21 (design): the visitor has the chat's transcript sent to the address of its form, once. */
function SendTranscript({ token, csrf }: { token: string; csrf: string }) {
  const [state, setState] = useState<{ busy: boolean; sent: string; error: string }>({
    busy: false,
    sent: '',
    error: '',
  });
  async function send() {
    setState({ busy: true, sent: '', error: '' });
    try {
      const r = await api<TranscriptSentAnswer>('POST', '/api/livechat/transcript/visitor', { token, _token: csrf });
      setState({ busy: false, sent: r.to, error: '' });
    } catch (err) {
      setState({ busy: false, sent: '', error: (err as Error).message });
    }
  }
  if (state.sent)
    return (
      <Text c="green" role="status" data-testid="transcript-sent">
        {T.sent(state.sent)}
      </Text>
    );
  return (
    <Stack gap={4}>
      <Button variant="light" w="fit-content" loading={state.busy} onClick={() => void send()}>
        {T.send}
      </Button>
      <Text size="xs" c="dimmed">
        {T.sendHint}
      </Text>
      {state.error && (
        <Text c="red" role="alert">
          {state.error}
        </Text>
      )}
    </Stack>
  );
}

/** VISITOR-08, VISITOR-09 (design): the ended page; Close tells a widget frame to close, else closes the tab. */
export function VisitorEndPage() {
  return (
    <Frame>
      <Title order={1} size="h3">
        {S.endedTitle}
      </Title>
      <Text>{S.endedBody}</Text>
      <Button
        onClick={() => {
          if (window.parent !== window) window.parent.postMessage({ parley: 'close' }, '*');
          else window.close();
        }}
      >
        {S.close}
      </Button>
    </Frame>
  );
}
