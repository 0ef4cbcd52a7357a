import {
  Alert,
  Button,
  Center,
  Group,
  Loader,
  Paper,
  Stack,
  Text,
  Textarea,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { type PublicSurveyAnswer, SURVEY_RATING_WORDS, SURVEY_RATINGS, SURVEY_STRINGS } from '@parley/contracts';
import { IconStar, IconStarFilled } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useParams } from 'react-router';
import { api } from '../../lib/http';
import { surveyKeys } from '../../lib/queryKeys';
import { useWrite } from '../../lib/useWrite';

/** `/survey/{token}`: the customer rates the help on one ticket, 1 to 5 with a comment, once. */
export function SurveyPage() {
  const token = useParams().token ?? '';
  const path = `/api/public/surveys/${encodeURIComponent(token)}`;
  const q = useQuery({
    queryKey: surveyKeys.public(token),
    queryFn: () => api<PublicSurveyAnswer>('GET', path),
    retry: false,
  });
  const [rating, setRating] = useState(0);
  const [comment, setComment] = useState('');
  const [sent, setSent] = useState(false);
  const { run, busy, error } = useWrite();
  const send = async () => {
    if (await run(() => api('POST', path, { rating, comment }))) setSent(true);
  };

  return (
    <Center mih="100dvh" p="md" bg="var(--mantine-color-body)">
      <Paper withBorder radius="md" p="xl" w="100%" maw={480} data-testid="survey-page">
        {q.isPending && <Loader aria-label="Loading" />}
        {q.isError && (
          <Title order={1} size="h3">
            {SURVEY_STRINGS.notFound}
          </Title>
        )}
        {q.data && (
          <Stack gap="md">
            <Text c="dimmed" size="sm">
              {q.data.company}
            </Text>
            <Title order={1} size="h3">
              {SURVEY_STRINGS.question(q.data.ticket_number)}
            </Title>
            <Text size="sm">{q.data.title}</Text>
            {sent || q.data.rating !== null ? (
              <Text role="status" data-testid="survey-done">
                {sent ? SURVEY_STRINGS.thanks : SURVEY_STRINGS.answered}
              </Text>
            ) : (
              <>
                <Group gap={4} role="radiogroup" aria-label="Rating">
                  {SURVEY_RATINGS.map((n) => (
                    <UnstyledButton
                      key={n}
                      role="radio"
                      aria-checked={rating === n}
                      aria-label={`${n}: ${SURVEY_RATING_WORDS[n]}`}
                      onClick={() => setRating(n)}
                      c={n <= rating ? 'yellow.6' : 'dimmed'}
                      p={4}
                    >
                      {n <= rating ? <IconStarFilled size={32} /> : <IconStar size={32} />}
                    </UnstyledButton>
                  ))}
                  {rating > 0 && <Text size="sm">{SURVEY_RATING_WORDS[rating]}</Text>}
                </Group>
                <Textarea
                  label={SURVEY_STRINGS.comment}
                  autosize
                  minRows={3}
                  value={comment}
                  onChange={(e) => setComment(e.currentTarget.value)}
                />
                {error && (
                  <Alert color="red" role="alert">
                    {error}
                  </Alert>
                )}
                <Button onClick={() => void send()} disabled={rating === 0} loading={busy} data-testid="survey-send">
                  {SURVEY_STRINGS.send}
                </Button>
              </>
            )}
          </Stack>
        )}
      </Paper>
    </Center>
  );
}
