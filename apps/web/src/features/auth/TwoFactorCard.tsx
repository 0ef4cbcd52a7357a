import {
  Alert,
  Button,
  Card,
  Code,
  Group,
  Image,
  PasswordInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { authApi } from '../../lib/api/auth';
import { errorText } from '../../lib/http';
import { t } from './strings';

type Step = { kind: 'idle' } | { kind: 'scan'; secret: string; qr: string } | { kind: 'codes'; codes: string[] };

/** Turn two-factor sign-in on (QR code, confirm with a code, backup codes once) or off (with the password). */
export function TwoFactorCard({ enabled, onChange }: { enabled: boolean; onChange(): void }) {
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  // Each step is one write: its call and what follows it (the next step) run as the mutation.
  const write = useMutation({
    mutationFn: (fn: () => Promise<void>) => fn(),
    onMutate: () => setError(null),
    onError: (err) => setError(errorText(err)),
  });
  const busy = write.isPending;
  const run = (fn: () => Promise<void>) => write.mutate(fn);

  // Enrolling asks for the password, as turning it off does: a session left open is not enough.
  const start = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const r = await authApi.tfaSetup(password);
      setPassword('');
      setStep({ kind: 'scan', secret: r.secret, qr: r.qr });
    });
  };
  const confirm = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      const r = await authApi.tfaEnable(code.trim());
      setStep({ kind: 'codes', codes: r.backup_codes });
      setCode('');
    });
  };
  const disable = (e: FormEvent) => {
    e.preventDefault();
    run(async () => {
      await authApi.tfaDisable(password);
      setPassword('');
      onChange();
    });
  };

  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          {t.tfaTitle}
        </Title>
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        {step.kind === 'codes' ? (
          <>
            <Text size="sm">{t.tfaBackup}</Text>
            <SimpleGrid cols={2} data-testid="backup-codes">
              {step.codes.map((c) => (
                <Code key={c}>{c}</Code>
              ))}
            </SimpleGrid>
            <Button w="fit-content" onClick={onChange}>
              Done
            </Button>
          </>
        ) : enabled ? (
          <form onSubmit={disable} noValidate>
            <Stack>
              <Text size="sm">{t.tfaOn}</Text>
              <PasswordInput
                label={t.tfaDisablePassword}
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
              <Button type="submit" color="red" variant="light" loading={busy} w="fit-content">
                {t.tfaDisable}
              </Button>
            </Stack>
          </form>
        ) : step.kind === 'scan' ? (
          <form onSubmit={confirm} noValidate>
            <Stack>
              <Text size="sm">{t.tfaScan}</Text>
              <Group align="flex-start">
                <Image
                  src={step.qr}
                  alt="QR code for your authenticator app"
                  w={160}
                  h={160}
                  bg="white"
                  p={4}
                  radius="sm"
                />
                <Stack gap={4}>
                  <Text size="xs" c="dimmed">
                    Key
                  </Text>
                  <Code data-testid="tfa-secret">{step.secret}</Code>
                </Stack>
              </Group>
              <TextInput
                label={t.tfaCode}
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                value={code}
                onChange={(e) => setCode(e.currentTarget.value)}
              />
              <Button type="submit" loading={busy} w="fit-content">
                {t.tfaConfirm}
              </Button>
            </Stack>
          </form>
        ) : (
          <form onSubmit={start} noValidate>
            <Stack>
              <Text size="sm">{t.tfaOff}</Text>
              <PasswordInput
                label={t.tfaStartPassword}
                autoComplete="current-password"
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
              <Button type="submit" loading={busy} w="fit-content">
                {t.tfaStart}
              </Button>
            </Stack>
          </form>
        )}
      </Stack>
    </Card>
  );
}
