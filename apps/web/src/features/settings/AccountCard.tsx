import { Card, Stack, Switch, Title } from '@mantine/core';
import { useState } from 'react';
import { settingsApi } from './api';
import { t } from './strings';

/** Admin: account-wide security settings. */
export function AccountCard({ require2fa, onChange }: { require2fa: boolean; onChange(): void }) {
  const [value, setValue] = useState(require2fa);
  const [busy, setBusy] = useState(false);
  return (
    <Card withBorder radius="md" padding="lg">
      <Stack>
        <Title order={3} size="h4">
          {t.account}
        </Title>
        <Switch
          label={t.require2fa}
          checked={value}
          disabled={busy}
          onChange={async (e) => {
            const next = e.currentTarget.checked;
            setBusy(true);
            try {
              await settingsApi.setRequire2fa(next);
              setValue(next);
              onChange();
            } finally {
              setBusy(false);
            }
          }}
        />
      </Stack>
    </Card>
  );
}
