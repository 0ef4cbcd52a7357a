import { Alert, Container, Loader } from '@mantine/core';
import { KB_LANGS, KB_TYPES, type KbLang, type KbType } from '@parley/contracts';
import { useQuery } from '@tanstack/react-query';
import { Navigate, useLocation, useParams, useSearchParams } from 'react-router';
import { errorText } from '../../lib/http';
import { kbKeys } from '../../lib/queryKeys';
import { kbApi } from './api';
import { KbEditor } from './KbEditor';
import { KbReader, NoSite } from './KbReader';

/** The collection, language, article and question of a `/support/:type/:lang/*` address; null when unknown. */
function useReading() {
  const params = useParams();
  const [search] = useSearchParams();
  const type = params.type as KbType;
  const lang = params.lang as KbLang;
  const [id, question] = (params['*'] ?? '').split('/').filter(Boolean);
  const site = search.get('site') ?? '';
  const known = KB_TYPES.includes(type) && KB_LANGS.includes(lang);
  return { known, type, lang, id, question, site, siteQuery: site ? `?site=${encodeURIComponent(site)}` : '' };
}

/**
 * Signed in: `/kb` is the editor; `/support/:type/:lang/...` reads the account's own published articles (or
 * another account's, with `?site=`); bare `/support` opens the knowledge base in English.
 */
export function KnowledgeScreen() {
  const { pathname } = useLocation();
  const r = useReading();
  const own = useQuery({ queryKey: kbKeys.site, queryFn: kbApi.site, enabled: !r.site && pathname !== '/kb' });
  if (pathname === '/kb') return <KbEditor />;
  if (pathname === '/support' || pathname === '/support/') return <Navigate to="/support/kb/en" replace />;
  if (!r.known) return <Navigate to="/support/kb/en" replace />;
  const token = r.site || own.data;
  return (
    <Container size="lg" py="md">
      {own.isError && !r.site ? (
        <Alert color="red">{errorText(own.error)}</Alert>
      ) : token ? (
        <KbReader
          where={{ token, type: r.type, lang: r.lang, siteQuery: r.siteQuery }}
          id={r.id}
          question={r.question}
        />
      ) : (
        <Loader aria-label="Loading" />
      )}
    </Container>
  );
}

/** Signed out: the public reading pages, the account named by `?site=` (docs/kb.md). */
export function PublicKnowledgeScreen() {
  const r = useReading();
  if (!r.known) return <Navigate to="/" replace />;
  return (
    <Container size="lg" py="xl" component="main">
      {r.site ? (
        <KbReader
          where={{ token: r.site, type: r.type, lang: r.lang, siteQuery: r.siteQuery }}
          id={r.id}
          question={r.question}
        />
      ) : (
        <NoSite type={r.type} />
      )}
    </Container>
  );
}
