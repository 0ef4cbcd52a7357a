import { Anchor, Box, Group, Image, Paper, Stack, Text, Typography } from '@mantine/core';
import { looksLikeEnvelope, type MessageFile } from '@parley/contracts';
import {
  IconFile,
  IconFileMusic,
  IconFileText,
  IconFileTypePdf,
  IconFileZip,
  IconMovie,
  IconPhoto,
} from '@tabler/icons-react';
import DOMPurify from 'dompurify';
import { useMemo } from 'react';
import { shell } from '../../lib/shellStore';
import type { ShownMessage } from './model';
import { SealedText } from './SealedText';
import { CONVERSATION_STRINGS as S } from './strings';

/** MSG-37: sizes as people read them. */
export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** MSG-03 (design): an icon per kind of file. */
function FileIcon({ type }: { type: string }) {
  const p = { size: 22, 'aria-hidden': true } as const;
  if (type.startsWith('image/')) return <IconPhoto {...p} />;
  if (type.startsWith('audio/')) return <IconFileMusic {...p} />;
  if (type.startsWith('video/')) return <IconMovie {...p} />;
  if (type === 'application/pdf') return <IconFileTypePdf {...p} />;
  if (/zip|compressed|tar|gzip|rar|7z/.test(type)) return <IconFileZip {...p} />;
  if (type.startsWith('text/')) return <IconFileText {...p} />;
  return <IconFile {...p} />;
}

/** MSG-03 (design): a file: its icon, name, size and a download link; audio and video also play here. */
export function FileCard({ f }: { f: MessageFile }) {
  return (
    <Paper withBorder p="xs" radius="sm" data-testid="message-file">
      <Group gap="xs" wrap="nowrap">
        <FileIcon type={f.fileType} />
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Text size="sm" truncate>
            {f.fileName}
          </Text>
          <Text size="xs" c="dimmed">
            {f.fileType} · {formatSize(f.size)}
          </Text>
        </Stack>
        <Anchor href={f.file} download={f.fileName} size="sm" ml="auto">
          {S.download}
        </Anchor>
      </Group>
      {f.fileType.startsWith('audio/') && (
        // biome-ignore lint/a11y/useMediaCaption: customer recordings come without captions
        <audio controls src={f.file} style={{ width: '100%', marginTop: 6 }} />
      )}
      {f.fileType.startsWith('video/') && (
        // biome-ignore lint/a11y/useMediaCaption: customer recordings come without captions
        <video controls src={f.file} style={{ maxWidth: '100%', marginTop: 6 }} />
      )}
    </Paper>
  );
}

/** An image: its thumbnail, opening the image viewer of the shell at full size. */
function ImageThumb({ src, full, name }: { src: string; full: string; name: string }) {
  return (
    <Box
      component="button"
      type="button"
      onClick={() => shell.showImage(full)}
      aria-label={`${S.openImage} ${name}`}
      style={{ border: 0, padding: 0, background: 'none', cursor: 'zoom-in' }}
      data-testid="message-image"
    >
      <Image src={src} alt={name} maw={240} mah={240} radius="sm" fit="contain" />
    </Box>
  );
}

/** MSG-02: HTML bodies pass through DOMPurify; the CSP of the server also forbids inline script. */
export function SafeHtml({ html }: { html: string }) {
  const clean = useMemo(
    () => DOMPurify.sanitize(html, { FORBID_TAGS: ['style', 'form', 'input'], FORBID_ATTR: ['style'] }),
    [html],
  );
  return (
    <Typography p={0} fz="sm">
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify just above */}
      <div data-testid="message-html" dangerouslySetInnerHTML={{ __html: clean }} />
    </Typography>
  );
}

const isFileType = (t: string) => t.includes('/') && t !== 'text/html';

/** MSG-02, MSG-03: the body of a message by its type. */
export function MessageBody({ m }: { m: ShownMessage }) {
  const files = m.files;
  if (m.type === 'text/html')
    return (
      <Stack gap={4}>
        {m.email && (
          <Text size="xs" c="dimmed">
            {m.email.subject && <b>{m.email.subject} · </b>}
            {S.emailTo}: {m.email.to.join(', ')}
            {m.email.cc.length > 0 && ` · ${S.emailCc}: ${m.email.cc.join(', ')}`}
          </Text>
        )}
        <SafeHtml html={m.message} />
        {files.map((f) => (
          <FileCard key={f.file} f={f} />
        ))}
      </Stack>
    );
  if (m.type === 'case')
    return (
      <Paper withBorder p="xs" radius="sm" data-testid="message-case">
        <Text size="xs" fw={700} tt="uppercase" c="dimmed">
          {S.caseTitle}
        </Text>
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {m.message}
        </Text>
      </Paper>
    );
  const images = m.type === 'image' || m.type.startsWith('image/');
  const text =
    (m.type === 'text' || m.type === 'system' || (files.length > 0 && m.message !== files[0]?.fileName)) &&
    !(images && files.length === 0);
  return (
    <Stack gap={4}>
      {text && m.message && looksLikeEnvelope(m.message) && <SealedText text={m.message} />}
      {text && m.message && !looksLikeEnvelope(m.message) && (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }} data-testid="message-text">
          {m.message}
        </Text>
      )}
      {images && files.length === 0 && <ImageThumb src={m.message} full={m.message} name="image" />}
      {files.map((f) =>
        f.fileType.startsWith('image/') ? (
          <ImageThumb key={f.file} src={f.thumb ?? f.file} full={f.file} name={f.fileName} />
        ) : (
          <FileCard key={f.file} f={f} />
        ),
      )}
      {isFileType(m.type) && files.length === 0 && !images && (
        <FileCard
          f={{
            file: m.message,
            fileName: m.message.split('/').pop() ?? m.message,
            fileType: m.type,
            size: 0,
            thumb: null,
          }}
        />
      )}
    </Stack>
  );
}
