import { Card, Stack, Switch, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { settingsApi } from './api';
import { t } from './strings';

/** Admin: account-wide security settings. */
export function AccountCard({ require2fa, onChange }: { require2fa: boolean; onChange(): void }) {
  const [value, setValue] = useState(require2fa);
  const save = useMutation({
    mutationFn: (next: boolean) => settingsApi.setRequire2fa(next),
    onSuccess: (_r, next) => {
      setValue(next);
      onChange();
    },
  });
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          {t.account}
        </Title>
        <Switch
          label={t.require2fa}
          checked={value}
          disabled={save.isPending}
          onChange={(e) => save.mutate(e.currentTarget.checked)}
        />
      </Stack>
    </Card>
  );
}
