import '@mantine/notifications/styles.css';
import { Center, type CSSVariablesResolver, createTheme, Loader, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { type AuthCheckAnswer, isTrialAccount, TOAST_LIMIT, TRIAL_PATHS } from '@parley/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ComponentType, type ReactNode, Suspense, useEffect } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { NetworkErrorPage } from '../features/auth/NetworkErrorPage';
import { PasswordResetPage } from '../features/auth/PasswordResetPage';
import { SignInPage } from '../features/auth/SignInPage';
import { TwoFactorRequiredPage } from '../features/auth/TwoFactorRequiredPage';
import { WorkspaceForm } from '../features/auth/WorkspaceForm';
import { lazyScreen } from '../lib/lazyRetry';
import { cookieColorSchemeManager } from '../lib/prefs';
import { realtime, useRealtimeEvent } from '../lib/realtime';
import { SessionProvider, useSession, useSetupState } from '../lib/session';
import { CrashBoundary } from '../ui/CrashPage';

// Shades chosen for WCAG AA contrast: white on the primary colour, dimmed text on the page (axe-checked).
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'md',
  components: {
    // Every modal's close button has a name for screen readers.
    // Plain objects, not Modal.extend: the sign-in page need not load the modal code.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Drawer: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
  },
});
const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
  dark: { '--mantine-color-dimmed': 'var(--mantine-color-dark-1)' },
});
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
const colorSchemeManager = cookieColorSchemeManager();

// The signed-in workspace and the public pages load on demand, so the sign-in page stays small.
const SignedInApp = lazyScreen(() => import('./SignedInApp'), 'SignedInApp') as unknown as ComponentType<{
  session: AuthCheckAnswer;
}>;
const screens = () => import('../features/screens/Screens');
const About = lazyScreen(screens, 'AboutPage');
const Pricing = lazyScreen(screens, 'PricingPage');
const Contact = lazyScreen(screens, 'ContactPage');
const TokenPage = lazyScreen(screens, 'TokenPage') as unknown as ComponentType<{ what: string }>;
const Knowledge = lazyScreen(() => import('../features/kb/KnowledgeScreen'), 'PublicKnowledgeScreen');
// The public visitor pages.
const VisitorRegister = lazyScreen(() => import('../features/visitor/VisitorPage'), 'VisitorRegisterPage');
const EndLiveChat = lazyScreen(() => import('../features/visitor/VisitorPage'), 'VisitorEndPage');
const VisitorChat = lazyScreen(() => import('../features/visitor/VisitorChatPage'), 'VisitorChatPage');
const NewTicket = lazyScreen(() => import('../features/forms/NewTicketPage'), 'NewTicketPage');
const Survey = lazyScreen(() => import('../features/surveys/SurveyPage'), 'SurveyPage');
const PublicDashboard = lazyScreen(() => import('../features/reports/PublicDashboardPage'), 'PublicDashboardPage');

function Loading() {
  return (
    <Center mih="100dvh">
      <Loader aria-label="Loading" />
    </Center>
  );
}

/** `/` signed out: the first-run form while the server has no workspace, else the sign-in form. */
function SignedOutHome() {
  const setup = useSetupState();
  if (setup.isPending) return <Loading />;
  return setup.data?.needed ? <WorkspaceForm mode="firstRun" /> : <SignInPage />;
}

/** `/signup` signed out: the trial form, or `/` when the server has public sign-up turned off. */
function SignUpRoute() {
  const setup = useSetupState();
  if (setup.isPending) return <Loading />;
  return setup.data?.signup === false ? <Navigate to="/" replace /> : <WorkspaceForm mode="signUp" />;
}

/** A trial account reaches only a few paths; any other sends it to `/`. */
function TrialGate({ session, children }: { session: AuthCheckAnswer; children: ReactNode }) {
  const { pathname } = useLocation();
  const allowed = TRIAL_PATHS.some((p) => pathname === p || (p !== '/' && pathname.startsWith(`${p}/`)));
  const always = pathname.startsWith('/settings') || pathname === '/about';
  if (isTrialAccount(session.account_type) && !allowed && !always) return <Navigate to="/" replace />;
  return children;
}

function AppRoutes() {
  const { state } = useSession();
  // The server refuses the socket of a user who must still set up two-factor sign-in: connect once it is done.
  const signedIn = state.phase === 'signedIn' && !state.session.tfa_setup_required;
  useEffect(() => {
    if (signedIn) realtime.connect();
    else realtime.disconnect();
  }, [signedIn]);
  // A catch-up cut short (away too long to replay): every view reloads from the server.
  useRealtimeEvent('resync', () => void queryClient.invalidateQueries());

  if (state.phase === 'networkError') return <NetworkErrorPage />;
  if (state.phase === 'loading') return <Loading />;
  if (state.phase === 'signedOut') {
    return (
      <Suspense fallback={<Loading />}>
        <Routes>
          <Route path="/" element={<SignedOutHome />} />
          <Route path="/signup" element={<SignUpRoute />} />
          <Route path="/password_reset" element={<PasswordResetPage />} />
          <Route path="/about" element={<About />} />
          <Route path="/pricing" element={<Pricing />} />
          <Route path="/contact" element={<Contact />} />
          <Route path="/end/livechat" element={<EndLiveChat />} />
          <Route path="/register/livechat/:token" element={<VisitorRegister />} />
          <Route path="/start/livechat/:token" element={<VisitorChat />} />
          <Route path="/survey/:token" element={<Survey />} />
          <Route path="/new_ticket/:token" element={<NewTicket />} />
          <Route path="/meeting/:token" element={<TokenPage what="Meeting" />} />
          <Route path="/dashboard/:id" element={<PublicDashboard />} />
          <Route path="/support/:type/:lang/*" element={<Knowledge />} />
          {/* SHELL-11: every other path sends a signed-out visitor to /. */}
          <Route path="*" element={<Navigate to="/" replace />} />
        </Routes>
      </Suspense>
    );
  }
  const { session } = state;
  if (session.tfa_setup_required) return <TwoFactorRequiredPage />;
  return (
    <TrialGate session={session}>
      <Suspense fallback={<Loading />}>
        <SignedInApp session={session} />
      </Suspense>
    </TrialGate>
  );
}

export function App() {
  return (
    <CrashBoundary>
      <MantineProvider
        theme={theme}
        defaultColorScheme="auto"
        colorSchemeManager={colorSchemeManager}
        cssVariablesResolver={cssVariablesResolver}
      >
        <Notifications position="bottom-left" limit={TOAST_LIMIT} />
        <QueryClientProvider client={queryClient}>
          <SessionProvider>
            <BrowserRouter>
              <AppRoutes />
            </BrowserRouter>
          </SessionProvider>
        </QueryClientProvider>
      </MantineProvider>
    </CrashBoundary>
  );
}
