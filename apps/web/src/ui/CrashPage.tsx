import { Button, Center, Code, Stack, Text, Title } from '@mantine/core';
import { SHELL_STRINGS } from '@parley/contracts';
import { Component, type ErrorInfo, type ReactNode } from 'react';

/** SHELL-49, SHELL-50: full screen, Refresh Now, and the stack so support can see what broke. */
export function CrashPage({ error }: { error: Error }) {
  return (
    <Center mih="100dvh" p="md" role="alert">
      <Stack maw={720} w="100%">
        <Title order={1} size="h2">
          {SHELL_STRINGS.crashTitle}
        </Title>
        <Text>{SHELL_STRINGS.crashBody}</Text>
        <Button onClick={() => window.location.reload()} w="fit-content">
          {SHELL_STRINGS.refreshNow}
        </Button>
        <Code block data-testid="crash-stack" style={{ maxHeight: '40dvh', overflow: 'auto' }}>
          {`${error.name}: ${error.message}\n${error.stack ?? ''}`}
        </Code>
      </Stack>
    </Center>
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
