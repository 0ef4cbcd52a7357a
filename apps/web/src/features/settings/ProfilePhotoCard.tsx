import { Alert, Avatar, Button, Card, FileButton, Group, Stack, Text, Title } from '@mantine/core';
import { PROFILE_PHOTO_TYPES, PROFILE_STRINGS as S } from '@parley/contracts';
import { IconPhotoUp, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { HttpError } from '../../lib/http';
import { setProfilePhoto, uploadProfilePhoto } from './api';

const ACCEPT: readonly string[] = PROFILE_PHOTO_TYPES;

/**
 * PROFILE-16: the signed-in user changes (or removes) their profile picture. The file is checked here by its
 * declared type for a quick answer and by its bytes on the server; after a change the session is read again
 * so the navigation avatar shows the new picture at once.
 */
export function ProfilePhotoCard({
  name,
  photo,
  onChange,
}: {
  name: string;
  photo: string | null;
  onChange(): Promise<void> | void;
}) {
  const [current, setCurrent] = useState(photo);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function run(change: () => Promise<{ photo: string | null }>, ok: string) {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const r = await change();
      setCurrent(r.photo);
      setDone(ok);
      await onChange();
    } catch (err) {
      setError(err instanceof HttpError ? err.description : 'Failed');
    } finally {
      setBusy(false);
    }
  }

  function choose(file: File | null) {
    if (!file) return;
    if (!ACCEPT.includes(file.type)) {
      setDone(null);
      setError(S.photoNotImage);
      return;
    }
    void run(() => uploadProfilePhoto(file), S.photoSaved);
  }

  return (
    <Card withBorder radius="md" padding="lg" data-testid="profile-photo-card">
      <Stack>
        <Title order={3} size="h4">
          {S.photoTitle}
        </Title>
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        {done && (
          <Alert color="green" variant="light" role="status">
            {done}
          </Alert>
        )}
        <Group wrap="nowrap" align="center">
          <Avatar
            src={current ?? undefined}
            alt={current ? name : undefined}
            name={name}
            color="indigo"
            variant="filled"
            radius="xl"
            size={72}
            data-testid="profile-photo-preview"
          />
          <Stack gap="xs">
            <Text size="sm" c="dimmed">
              {S.photoHelp}
            </Text>
            <Group gap="xs">
              <FileButton onChange={choose} accept={ACCEPT.join(',')}>
                {(props) => (
                  <Button {...props} size="sm" loading={busy} leftSection={<IconPhotoUp size={16} />}>
                    {S.photoChoose}
                  </Button>
                )}
              </FileButton>
              {current && (
                <Button
                  size="sm"
                  variant="default"
                  disabled={busy}
                  leftSection={<IconTrash size={16} />}
                  onClick={() => run(() => setProfilePhoto(null), S.photoRemoved)}
                >
                  {S.photoRemove}
                </Button>
              )}
            </Group>
          </Stack>
        </Group>
      </Stack>
    </Card>
  );
}
