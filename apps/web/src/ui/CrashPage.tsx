import { SHELL_STRINGS } from '@parley/contracts';
import { Component, type ErrorInfo, type ReactNode } from 'react';

/**
 * SHELL-49, SHELL-50: full screen, Refresh Now, and the stack so support can see what broke. Plain HTML
 * with inline styles: it sits outside the UI library, which may be what failed.
 */
export function CrashPage({ error }: { error: Error }) {
  const dark = typeof window !== 'undefined' && window.matchMedia?.('(prefers-color-scheme: dark)').matches;
  const fg = dark ? '#e9ecef' : '#212529';
  return (
    <main
      role="alert"
      style={{
        minHeight: '100dvh',
        display: 'grid',
        placeItems: 'center',
        padding: 16,
        background: dark ? '#1a1b1e' : '#fff',
        color: fg,
        fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      }}
    >
      <div style={{ maxWidth: 720, width: '100%' }}>
        <h1 style={{ fontSize: 26, margin: '0 0 12px' }}>{SHELL_STRINGS.crashTitle}</h1>
        <p style={{ margin: '0 0 16px', lineHeight: 1.5 }}>{SHELL_STRINGS.crashBody}</p>
        <button
          type="button"
          onClick={() => window.location.reload()}
          style={{
            background: '#3b5bdb',
            color: '#fff',
            border: 0,
            borderRadius: 8,
            padding: '10px 18px',
            fontSize: 15,
            cursor: 'pointer',
          }}
        >
          {SHELL_STRINGS.refreshNow}
        </button>
        <pre
          data-testid="crash-stack"
          style={{
            marginTop: 16,
            maxHeight: '40dvh',
            overflow: 'auto',
            padding: 12,
            borderRadius: 8,
            background: dark ? '#25262b' : '#f1f3f5',
            color: fg,
            fontSize: 12,
            whiteSpace: 'pre-wrap',
          }}
        >
          {`${error.name}: ${error.message}\n${error.stack ?? ''}`}
        </pre>
      </div>
    </main>
  );
}

/** Catches a render error anywhere below and shows the crash page instead of a blank screen. */
export class CrashBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('Parley crashed', error, info.componentStack);
  }
  render() {
    return this.state.error ? <CrashPage error={this.state.error} /> : this.props.children;
  }
}
