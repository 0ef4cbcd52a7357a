import { Button, FileInput, Group, List, Modal, Stack, Text } from '@mantine/core';
import type { ImportAnswer } from '@parley/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { contactKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { contactsApi } from './api';
import { T } from './strings';

const SHOWN_ERRORS = 50;

/** CSV import: the file is checked first (a dry run listing the rows that cannot be imported), then imported. */
export function ImportModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [checked, setChecked] = useState<ImportAnswer | null>(null);
  const [done, setDone] = useState<ImportAnswer | null>(null);
  const { run, busy, error, setError } = useWrite();
  useEffect(() => {
    if (opened) {
      setFile(null);
      setChecked(null);
      setDone(null);
      setError(null);
    }
  }, [opened, setError]);

  const importFile = async (dryRun: boolean) => {
    if (!file) return;
    await run(async () => {
      const answer = await contactsApi.importCsv(await file.text(), dryRun);
      if (dryRun) setChecked(answer);
      else {
        setDone(answer);
        // Only a real import changes the contacts.
        await qc.invalidateQueries({ queryKey: contactKeys.all });
      }
    });
  };
  const shown = done ?? checked;
  const good = checked ? checked.created + checked.updated : 0;

  return (
    <Modal opened={opened} onClose={onClose} title={T.importTitle} centered size="lg">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {T.importHint}
        </Text>
        <FileInput
          label={T.importFile}
          accept=".csv,text/csv"
          value={file}
          onChange={(f) => {
            setFile(f);
            setChecked(null);
            setDone(null);
          }}
          data-testid="contacts-import-file"
        />
        {checked && !done && (
          <Text data-testid="contacts-import-checked">
            {T.importChecked(checked.rows, checked.created, checked.updated)}
          </Text>
        )}
        {done && (
          <Text c="green" data-testid="contacts-import-done">
            {T.importDone(done.created, done.updated)}
          </Text>
        )}
        {shown && shown.errors.length > 0 && (
          <Stack gap={4} data-testid="contacts-import-errors">
            <Text size="sm" fw={500}>
              {T.importErrors(shown.errors.length)}
            </Text>
            <List size="sm" spacing={2} mah={200} style={{ overflowY: 'auto' }}>
              {shown.errors.slice(0, SHOWN_ERRORS).map((e) => (
                <List.Item key={e.row}>{T.importRow(e.row, e.message)}</List.Item>
              ))}
            </List>
            {shown.errors.length > SHOWN_ERRORS && (
              <Text size="sm" c="dimmed">
                {T.importMore(shown.errors.length - SHOWN_ERRORS)}
              </Text>
            )}
          </Stack>
        )}
        {error && (
          <Text c="red" size="sm" role="alert">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {T.cancel}
          </Button>
          {!checked ? (
            <Button
              onClick={() => void importFile(true)}
              disabled={!file}
              loading={busy}
              data-testid="contacts-import-check"
            >
              {T.importCheck}
            </Button>
          ) : (
            !done && (
              <Button
                onClick={() => void importFile(false)}
                disabled={good === 0}
                loading={busy}
                data-testid="contacts-import-run"
              >
                {T.importRun(good)}
              </Button>
            )
          )}
        </Group>
      </Stack>
    </Modal>
  );
}
