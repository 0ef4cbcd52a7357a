import { Alert, Avatar, Button, Card, FileButton, Group, Stack, Text, Title } from '@mantine/core';
import { PROFILE_PHOTO_TYPES, PROFILE_STRINGS as S } from '@parley/contracts';
import { IconPhotoUp, IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { errorText } from '../../lib/http';
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
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (v: { change: () => Promise<{ photo: string | null }>; ok: string }) => v.change(),
    onMutate: () => {
      setError(null);
      setDone(null);
    },
    onSuccess: async (r, v) => {
      setCurrent(r.photo);
      setDone(v.ok);
      await onChange();
    },
    onError: (err) => setError(errorText(err)),
  });
  const busy = save.isPending;
  const run = (change: () => Promise<{ photo: string | null }>, ok: string) => save.mutate({ change, ok });

  function choose(file: File | null) {
    if (!file) return;
    if (!ACCEPT.includes(file.type)) {
      setDone(null);
      setError(S.photoNotImage);
      return;
    }
    run(() => uploadProfilePhoto(file), S.photoSaved);
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
