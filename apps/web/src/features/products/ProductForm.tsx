import { Button, Group, Modal, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { PRODUCT_LIMITS, type ProductInput } from '@parley/contracts';
import { useState } from 'react';
import { useWrite } from '../../lib/useWrite';
import { productKeys } from './api';
import { P } from './strings';

/** The product's fields in a dialog (new product, edit); the server's refusal (a taken name) is shown in it. */
export function ProductForm(props: {
  title: string;
  action: string;
  initial?: { name: string; code: string | null; description: string };
  onClose(): void;
  save(input: ProductInput): Promise<void>;
}) {
  const [name, setName] = useState(props.initial?.name ?? '');
  const [code, setCode] = useState(props.initial?.code ?? '');
  const [description, setDescription] = useState(props.initial?.description ?? '');
  const { run, busy, error, setError } = useWrite({ invalidate: productKeys.all });
  const submit = async () => {
    if (!name.trim()) return setError(P.nameRequired);
    if (await run(() => props.save({ name, code, description }))) props.onClose();
  };
  return (
    <Modal opened onClose={props.onClose} title={props.title} centered>
      <Stack gap="sm">
        <TextInput
          label={P.name}
          value={name}
          required
          maxLength={PRODUCT_LIMITS.name + 20}
          onChange={(e) => setName(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void submit();
          }}
          data-autofocus
          data-testid="product-name"
        />
        <TextInput
          label={P.code}
          description={P.codeHint}
          value={code}
          maxLength={PRODUCT_LIMITS.code + 10}
          onChange={(e) => setCode(e.currentTarget.value)}
          data-testid="product-code"
        />
        <Textarea
          label={P.description}
          value={description}
          autosize
          minRows={3}
          maxRows={8}
          maxLength={PRODUCT_LIMITS.description}
          onChange={(e) => setDescription(e.currentTarget.value)}
          data-testid="product-description"
        />
        {error && (
          <Text c="red" size="sm" role="alert">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {P.cancel}
          </Button>
          <Button onClick={() => void submit()} loading={busy} data-testid="product-save">
            {props.action}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
