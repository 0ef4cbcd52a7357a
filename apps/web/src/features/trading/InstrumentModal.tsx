import { Alert, Button, Group, Modal, Stack, TagsInput, TextInput } from '@mantine/core';
import type { Instrument } from '@parley/contracts';
import { useState } from 'react';
import { useWrite } from '../../lib/useWrite';
import { tradingApi, tradingKeys } from './api';
import { T } from './strings';

/** Adds an instrument to the watch list, or edits one; the server checks the fields. */
export function InstrumentModal({
  opened,
  instrument,
  onClose,
  onSaved,
}: {
  opened: boolean;
  instrument: Instrument | null;
  onClose: () => void;
  onSaved: (id: number) => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={instrument ? T.editInstrument : T.addInstrument}>
      {opened && <Form instrument={instrument} onClose={onClose} onSaved={onSaved} />}
    </Modal>
  );
}

function Form({
  instrument,
  onClose,
  onSaved,
}: {
  instrument: Instrument | null;
  onClose: () => void;
  onSaved: (id: number) => void;
}) {
  const [symbol, setSymbol] = useState(instrument?.symbol ?? '');
  const [name, setName] = useState(instrument?.name ?? '');
  const [aliases, setAliases] = useState<string[]>(instrument?.aliases ?? []);
  const w = useWrite({ invalidate: tradingKeys.all });
  const save = async () => {
    let id = instrument?.id ?? 0;
    const body = { symbol, name, aliases };
    const ok = await w.run(async () => {
      const r = (await (instrument ? tradingApi.edit(instrument.id, body) : tradingApi.add(body))) as {
        data: Instrument;
      };
      id = r.data.id;
    });
    if (ok) onSaved(id);
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack gap="sm">
        <TextInput
          label={T.symbol}
          description={T.symbolHint}
          value={symbol}
          onChange={(e) => setSymbol(e.currentTarget.value)}
          data-autofocus
          data-testid="instrument-symbol"
        />
        <TextInput
          label={T.name}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          data-testid="instrument-name"
        />
        <TagsInput
          label={T.aliases}
          description={T.aliasesHint}
          value={aliases}
          onChange={setAliases}
          data-testid="instrument-aliases"
        />
        {w.error && (
          <Alert color="red" data-testid="instrument-error">
            {w.error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {T.cancel}
          </Button>
          <Button type="submit" loading={w.busy} data-testid="instrument-save">
            {T.save}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
