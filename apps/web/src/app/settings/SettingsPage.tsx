import { Container, Stack, Tabs, Title } from '@mantine/core';
import { type AuthCheckAnswer, SETTINGS_SECTIONS } from '@parley/contracts';
import type { ReactNode } from 'react';
import { Navigate, useNavigate, useParams } from 'react-router';
import { AiSettingsCard } from '../../features/aiSettings/AiSettingsCard';
import { TwoFactorCard } from '../../features/auth/TwoFactorCard';
import { AutomationCard } from '../../features/automation/AutomationCard';
import { ChannelsCard } from '../../features/channels/ChannelsCard';
import { FailedDeliveriesCard } from '../../features/channels/FailedDeliveriesCard';
import { DepartmentsCard } from '../../features/departments/DepartmentsCard';
import { MailboxesCard } from '../../features/email/MailboxesCard';
import { EncryptionCard } from '../../features/encryption/EncryptionCard';
import { ApiTokensCard } from '../../features/integrations/ApiTokensCard';
import { WebhooksCard } from '../../features/integrations/WebhooksCard';
import { LabelsCard } from '../../features/labels/LabelsCard';
import { LiveChatSettingsCard } from '../../features/livechat/LiveChatSettingsCard';
import { NotificationSettingsCard } from '../../features/notifications/NotificationSettingsCard';
import { CannedRepliesCard } from '../../features/replies/CannedRepliesCard';
import { MacrosCard } from '../../features/replies/MacrosCard';
import { RetentionCard } from '../../features/retention/RetentionCard';
import { AccountCard } from '../../features/settings/AccountCard';
import { AnnouncementsCard } from '../../features/settings/AnnouncementsCard';
import { AppearanceCard } from '../../features/settings/AppearanceCard';
import { AuditLog } from '../../features/settings/AuditLog';
import { PasswordCard } from '../../features/settings/PasswordCard';
import { ProfilePhotoCard } from '../../features/settings/ProfilePhotoCard';
import { SessionsCard } from '../../features/settings/SessionsCard';
import { t } from '../../features/settings/strings';
import { UsersAdmin } from '../../features/settings/UsersAdmin';
import { SlaSettings } from '../../features/sla/SlaSettings';
import { SsoCard } from '../../features/sso/SsoCard';
import { CustomStatusesCard } from '../../features/status/CustomStatusesCard';
import { TicketSettings } from '../../features/tickets/TicketSettings';
import { useRefreshSession } from '../../lib/session';

/** `/settings/:tab`: the settings sections of SHELL-54, in index order; admin sections for admins only. */
export function SettingsPage({ session }: { session: AuthCheckAnswer }) {
  const { tab = 'security' } = useParams();
  const navigate = useNavigate();
  const refresh = useRefreshSession();
  const admin = session.type === 'admin';
  const panels: Record<string, ReactNode> = {
    security: (
      <Stack>
        <ProfilePhotoCard name={session.adminName ?? ''} photo={session.photo ?? null} onChange={refresh} />
        <PasswordCard />
        <TwoFactorCard enabled={Boolean(session.tfa_enabled)} onChange={refresh} />
      </Stack>
    ),
    sessions: <SessionsCard />,
    appearance: (
      <Stack>
        <AppearanceCard />
        <NotificationSettingsCard />
      </Stack>
    ),
    users: <UsersAdmin me={session.userId} />,
    statuses: <CustomStatusesCard />,
    announcements: <AnnouncementsCard />,
    account: <AccountCard require2fa={Boolean(session.settings?.[0]?.require_2fa)} onChange={refresh} />,
    audit: <AuditLog />,
    departments: <DepartmentsCard />,
    labels: <LabelsCard />,
    tickets: <TicketSettings />,
    livechat: <LiveChatSettingsCard />,
    replies: <CannedRepliesCard admin={admin} me={session.userId ?? 0} />,
    macros: <MacrosCard />,
    automation: <AutomationCard />,
    retention: <RetentionCard />,
    sso: <SsoCard />,
    encryption: <EncryptionCard />,
    sla: <SlaSettings />,
    mailboxes: <MailboxesCard />,
    channels: (
      <Stack>
        <ChannelsCard />
        <FailedDeliveriesCard />
      </Stack>
    ),
    ai: <AiSettingsCard />,
    integrations: (
      <Stack>
        <ApiTokensCard admin={admin} />
        {admin && <WebhooksCard />}
      </Stack>
    ),
  };
  const sections = Object.values(SETTINGS_SECTIONS).filter((s) => (admin || !s.admin) && s.key in panels);
  if (!sections.some((s) => s.key === tab)) return <Navigate to="/settings/security" replace />;
  return (
    <Container size="lg">
      <Stack>
        <Title order={1} size="h2">
          {t.title}
        </Title>
        <Tabs value={tab} onChange={(v) => navigate(`/settings/${v}`)} keepMounted={false}>
          <Tabs.List mb="md">
            {sections.map((s) => (
              <Tabs.Tab key={s.key} value={s.key}>
                {s.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {sections.map((s) => (
            <Tabs.Panel key={s.key} value={s.key}>
              {panels[s.key]}
            </Tabs.Panel>
          ))}
        </Tabs>
      </Stack>
    </Container>
  );
}
