import { Center, createTheme, Loader, MantineProvider } from '@mantine/core';
import { type AuthCheckAnswer, TRIAL_PATHS } from '@parley/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect } from 'react';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { NetworkErrorPage } from '../features/auth/NetworkErrorPage';
import { PasswordResetPage } from '../features/auth/PasswordResetPage';
import { SignInPage } from '../features/auth/SignInPage';
import { TwoFactorRequiredPage } from '../features/auth/TwoFactorRequiredPage';
import { SessionProvider, useSession, useSetupState } from '../features/auth/useSession';
import { WorkspaceForm } from '../features/auth/WorkspaceForm';
import { HomePage } from '../features/home/HomePage';
import { SettingsPage } from '../features/settings/SettingsPage';
import { realtime } from '../lib/realtime';
import { NotFoundPage } from './NotFoundPage';
import { SignedInLayout } from './SignedInLayout';

const theme = createTheme({ primaryColor: 'indigo', defaultRadius: 'md' });
const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });

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

/** DECISIONS 20: a trial account reaches only a few paths; any other sends it to `/`. */
function TrialGate({ session, children }: { session: AuthCheckAnswer; children: ReactNode }) {
  const { pathname } = useLocation();
  const allowed = TRIAL_PATHS.some((p) => pathname === p || (p !== '/' && pathname.startsWith(`${p}/`)));
  if (session.account_type === 0 && !allowed && !pathname.startsWith('/settings')) return <Navigate to="/" replace />;
  return children;
}

function AppRoutes() {
  const { state } = useSession();
  const signedIn = state.phase === 'signedIn';
  useEffect(() => {
    if (signedIn) realtime.connect();
    else realtime.disconnect();
  }, [signedIn]);

  if (state.phase === 'networkError') return <NetworkErrorPage />;
  if (state.phase === 'loading') return <Loading />;
  if (state.phase === 'signedOut') {
    return (
      <Routes>
        <Route path="/" element={<SignedOutHome />} />
        <Route path="/signup" element={<WorkspaceForm mode="signUp" />} />
        <Route path="/password_reset" element={<PasswordResetPage />} />
        {/* Every other path sends a signed-out visitor to / (A §2). */}
        <Route path="*" element={<Navigate to="/" replace />} />
      </Routes>
    );
  }
  const { session } = state;
  if (session.tfa_setup_required) return <TwoFactorRequiredPage />;
  return (
    <TrialGate session={session}>
      <Routes>
        <Route element={<SignedInLayout session={session} />}>
          <Route path="/" element={<HomePage session={session} />} />
          <Route path="/settings/:tab?" element={<SettingsPage session={session} />} />
        </Route>
        {['/pricing', '/contact', '/login', '/signup', '/password_reset'].map((p) => (
          <Route key={p} path={p} element={<Navigate to="/" replace />} />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </TrialGate>
  );
}

export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <SessionProvider>
          <BrowserRouter>
            <AppRoutes />
          </BrowserRouter>
        </SessionProvider>
      </QueryClientProvider>
    </MantineProvider>
  );
}
