import { Container, Stack, Tabs, Title } from '@mantine/core';
import type { AuthCheckAnswer } from '@parley/contracts';
import { useNavigate, useParams } from 'react-router';
import { useRefreshSession } from '../auth/useSession';
import { AccountCard } from './AccountCard';
import { AuditLog } from './AuditLog';
import { PasswordCard } from './PasswordCard';
import { SessionsCard } from './SessionsCard';
import { t } from './strings';
import { TwoFactorCard } from './TwoFactorCard';
import { UsersAdmin } from './UsersAdmin';

/** `/settings/:tab`: my security and sessions; for admins also users, account and audit log. */
export function SettingsPage({ session }: { session: AuthCheckAnswer }) {
  const { tab = 'security' } = useParams();
  const navigate = useNavigate();
  const refresh = useRefreshSession();
  const admin = session.type === 'admin';
  return (
    <Container size="lg">
      <Stack>
        <Title order={1} size="h2">
          {t.title}
        </Title>
        <Tabs value={tab} onChange={(v) => navigate(`/settings/${v}`)} keepMounted={false}>
          <Tabs.List mb="md">
            <Tabs.Tab value="security">{t.security}</Tabs.Tab>
            <Tabs.Tab value="sessions">{t.sessions}</Tabs.Tab>
            {admin && <Tabs.Tab value="users">{t.users}</Tabs.Tab>}
            {admin && <Tabs.Tab value="account">{t.account}</Tabs.Tab>}
            {admin && <Tabs.Tab value="audit">{t.audit}</Tabs.Tab>}
          </Tabs.List>
          <Tabs.Panel value="security">
            <Stack>
              <PasswordCard />
              <TwoFactorCard enabled={Boolean(session.tfa_enabled)} onChange={refresh} />
            </Stack>
          </Tabs.Panel>
          <Tabs.Panel value="sessions">
            <SessionsCard />
          </Tabs.Panel>
          {admin && (
            <>
              <Tabs.Panel value="users">
                <UsersAdmin me={session.userId} />
              </Tabs.Panel>
              <Tabs.Panel value="account">
                <AccountCard require2fa={Boolean(session.settings?.[0]?.require_2fa)} onChange={refresh} />
              </Tabs.Panel>
              <Tabs.Panel value="audit">
                <AuditLog />
              </Tabs.Panel>
            </>
          )}
        </Tabs>
      </Stack>
    </Container>
  );
}
