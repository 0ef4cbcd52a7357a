import '@mantine/charts/styles.css';
import { BarChart, PieChart } from '@mantine/charts';
import { Alert, Code, FileInput, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { emotionColor, type VoiceAnalysis } from '@parley/contracts';
import { useMutation } from '@tanstack/react-query';
import { errorText } from '../../lib/http';
import { callsApi } from './api';

/** CALL-49: the bar chart's value axis. */
export const VOICE_BAR_RANGE: [number, number] = [-50, 200];

/**
 * CALL-47 .. CALL-52: `/upload`, the voice-upload test page: an audio file is read by the server's voice
 * analysis; the page shows the raw answer, a bar chart of each second's amplitude and tempo (CALL-52,
 * design; the axis runs -50 to 200) and a pie chart of the emotions' shares.
 */
export function VoiceUploadScreen() {
  const read = useMutation({ mutationFn: (f: File) => callsApi.voice(f) });
  return (
    <Stack gap="md" maw={1100}>
      <Title order={1} size="h2">
        Upload
      </Title>
      <FileInput
        label="Audio file"
        description="A WAV recording; the server reads its emotion, amplitude and tempo second by second."
        accept="audio/*"
        placeholder="Choose an audio file"
        clearable
        onChange={(f) => f && read.mutate(f)}
        disabled={read.isPending}
        maw={420}
        data-testid="voice-file"
      />
      {read.isPending && <Loader aria-label="Loading" />}
      {read.isError && <Alert color="red">{errorText(read.error)}</Alert>}
      {read.data && <Result raw={read.data.raw} data={read.data.data} />}
    </Stack>
  );
}

function Result({ raw, data }: { raw: string; data: VoiceAnalysis }) {
  const seconds = data.amplitude.map((a, i) => ({ second: String(i + 1), amplitude: a, tempo: data.tempo[i] ?? 0 }));
  const pie = Object.entries(data.percentage).map(([name, value]) => ({ name, value, color: emotionColor(name) }));
  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Paper withBorder radius="md" p="md" data-testid="voice-bar">
          <Text fw={600} size="sm" mb="xs">
            Amplitude and tempo per second
          </Text>
          <BarChart
            h={260}
            data={seconds}
            dataKey="second"
            yAxisProps={{ domain: VOICE_BAR_RANGE, ticks: [-50, 0, 50, 100, 150, 200], allowDataOverflow: true }}
            withLegend
            series={[
              { name: 'amplitude', color: 'blue.6' },
              { name: 'tempo', color: 'teal.6' },
            ]}
          />
        </Paper>
        <Paper withBorder radius="md" p="md" data-testid="voice-pie">
          <Text fw={600} size="sm" mb="xs">
            Emotions
          </Text>
          {pie.length === 0 ? (
            <Text size="sm" c="dimmed">
              No voiced seconds: no emotion to show.
            </Text>
          ) : (
            <PieChart data={pie} withLabels labelsType="percent" withTooltip h={240} mx="auto" />
          )}
        </Paper>
      </SimpleGrid>
      <Paper withBorder radius="md" p="md">
        <Text fw={600} size="sm" mb="xs">
          Result
        </Text>
        <Code block data-testid="voice-raw" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
          {raw}
        </Code>
      </Paper>
    </Stack>
  );
}
