import { Alert, Button, Group, PasswordInput, Radio, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import {
  type AiProviderChoice,
  type AiSettings,
  type AiSettingsTestAnswer,
  type AiTranslatorChoice,
  AI_GUIDANCE_STRINGS as G,
  AI_SETTINGS_STRINGS as S,
} from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { aiSettingsKey, servicesKey } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';
import { SettingsCard } from '../../ui/SettingsCard';
import { toast } from '../../ui/toast';
import { aiSettingsApi } from './api';

interface Draft {
  provider: AiProviderChoice;
  baseUrl: string;
  model: string;
  /** A new key typed in; '' keeps the stored one (unless `removeKey`). */
  key: string;
  removeKey: boolean;
  translator: AiTranslatorChoice;
}

const draftOf = (s: AiSettings): Draft => ({
  provider: s.provider,
  baseUrl: s.base_url,
  model: s.model,
  key: '',
  removeKey: false,
  translator: s.translator,
});

/**
 * Settings -> AI (admins): the engine that guides agents (the built-in one, or a language model at an
 * OpenAI-compatible base URL with its model and key) and who translates. The key is write-only: the card shows
 * whether one is set and its last 4 characters. Test calls the model with what the form holds and says how it
 * went (its time, or why not: the key, a rate limit, no answer in time).
 */
export function AiSettingsCard() {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: aiSettingsKey, queryFn: aiSettingsApi.get });
  const [d, setD] = useState<Draft | null>(null);
  const [tested, setTested] = useState<AiSettingsTestAnswer | null>(null);
  const write = useWrite();
  const test = useWrite();
  useEffect(() => {
    if (q.data && !d) setD(draftOf(q.data));
  }, [q.data, d]);
  if (!q.data || !d) return null;
  const s = q.data;
  const usesModel = d.provider === 'openai' || d.translator === 'openai';
  const keyInput = d.removeKey ? '' : d.key.trim() || undefined;

  const save = async () => {
    let saved: AiSettings | null = null;
    const ok = await write.run(async () => {
      saved = await aiSettingsApi.save({
        provider: d.provider,
        base_url: d.baseUrl.trim(),
        model: d.model.trim(),
        api_key: keyInput,
        translator: d.translator,
      });
    });
    if (!ok || !saved) return;
    qc.setQueryData(aiSettingsKey, saved);
    // Translation may have come or gone with the translator chosen.
    await qc.invalidateQueries({ queryKey: servicesKey });
    setD(draftOf(saved));
    toast({ message: S.saved });
  };
  const runTest = async () => {
    setTested(null);
    await test.run(async () => {
      setTested(await aiSettingsApi.test({ base_url: d.baseUrl.trim(), model: d.model.trim(), api_key: keyInput }));
    });
  };

  return (
    <SettingsCard
      title={S.title}
      hint={S.intro}
      testId="ai-settings"
      error={write.error}
      errorTestId="ai-settings-error"
      footer={
        <Button loading={write.busy} onClick={() => void save()} data-testid="ai-save">
          {S.save}
        </Button>
      }
    >
      <Stack gap="md">
        <Stack gap={4}>
          <Text size="sm" fw={500} id="ai-engine-label">
            {S.engineLabel}
          </Text>
          <SegmentedControl
            aria-labelledby="ai-engine-label"
            value={d.provider}
            onChange={(v) => setD({ ...d, provider: v as AiProviderChoice })}
            data={[
              { value: 'offline', label: G.engine.offline },
              { value: 'openai', label: G.engine.openai },
            ]}
            data-testid="ai-engine"
            style={{ alignSelf: 'flex-start' }}
          />
        </Stack>
        <TextInput
          label={S.baseUrl}
          description={S.baseUrlHelp}
          placeholder="https://api.openai.com/v1"
          value={d.baseUrl}
          onChange={(e) => setD({ ...d, baseUrl: e.currentTarget.value })}
          required={usesModel}
          data-testid="ai-base-url"
        />
        <TextInput
          label={S.model}
          placeholder="gpt-4o-mini"
          value={d.model}
          onChange={(e) => setD({ ...d, model: e.currentTarget.value })}
          required={usesModel}
          data-testid="ai-model"
        />
        <Stack gap={4}>
          <PasswordInput
            label={S.apiKey}
            description={s.key_set && !d.removeKey ? S.apiKeySet(s.key_last4) : S.apiKeyNone}
            value={d.key}
            onChange={(e) => setD({ ...d, key: e.currentTarget.value, removeKey: false })}
            autoComplete="off"
            disabled={!s.installation.secrets}
            data-testid="ai-key"
          />
          {!s.installation.secrets && (
            <Text size="xs" c="dimmed">
              {S.noSecretsKey}
            </Text>
          )}
          {s.key_set && !d.removeKey && (
            <Button
              variant="subtle"
              size="compact-xs"
              color="red"
              style={{ alignSelf: 'flex-start' }}
              onClick={() => setD({ ...d, key: '', removeKey: true })}
              data-testid="ai-remove-key"
            >
              {S.removeKey}
            </Button>
          )}
        </Stack>
        <Group gap="sm" align="center">
          <Button
            variant="default"
            loading={test.busy}
            onClick={() => void runTest()}
            disabled={!d.baseUrl.trim() || !d.model.trim()}
            data-testid="ai-test"
          >
            {S.test}
          </Button>
          <div aria-live="polite" style={{ minWidth: 0, flex: 1 }}>
            {test.error && (
              <Text size="sm" c="red" data-testid="ai-test-result">
                {test.error}
              </Text>
            )}
            {tested && (
              <Alert
                color={tested.result === 'success' ? 'green' : 'red'}
                variant="light"
                p="xs"
                data-testid="ai-test-result"
              >
                {tested.result === 'success' ? S.testOk(tested.model, tested.ms) : tested.description}
              </Alert>
            )}
          </div>
        </Group>
        <Stack gap={4}>
          <Radio.Group
            label={S.translatorLabel}
            value={d.translator}
            onChange={(v) => setD({ ...d, translator: v as AiTranslatorChoice })}
            data-testid="ai-translator"
          >
            <Stack gap={6} mt={6}>
              <Radio value="installation" label={S.translators.installation} data-testid="ai-translator-installation" />
              <Radio value="openai" label={S.translators.openai} data-testid="ai-translator-openai" />
            </Stack>
          </Radio.Group>
          {d.translator === 'installation' && !s.installation.translate && (
            <Text size="xs" c="dimmed">
              {S.noInstallationTranslator}
            </Text>
          )}
        </Stack>
      </Stack>
    </SettingsCard>
  );
}
