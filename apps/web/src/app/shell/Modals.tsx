import { Anchor, Button, Card, Group, Image, Modal, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { BILLING_SECTION, LOG_OUT_CONFIRM, PLANS, SETTINGS_SECTIONS, SHELL_STRINGS } from '@parley/contracts';
import { Link, useNavigate } from 'react-router';
import { useSignOut } from '../../lib/session';
import { shell, useShell } from '../../lib/shellStore';
import { resumeAudio } from '../../lib/sound';

/** NAV-36 */
function LogoutConfirm() {
  const opened = useShell((s) => s.logoutConfirmOpen);
  const signOut = useSignOut();
  const close = () => shell.set({ logoutConfirmOpen: false });
  return (
    <Modal opened={opened} onClose={close} title="Log Out" centered size="sm">
      <Stack>
        <Text>{LOG_OUT_CONFIRM}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button
            color="red.9"
            onClick={async () => {
              close();
              await signOut();
            }}
            data-testid="confirm-logout"
          >
            Log Out
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** SHELL-57 */
function RemovalModal() {
  const opened = useShell((s) => s.removalOpen);
  const close = () => shell.set({ removalOpen: false });
  return (
    <Modal opened={opened} onClose={close} title={SHELL_STRINGS.removedTitle} centered size="sm">
      <Stack>
        <Text>{SHELL_STRINGS.removedBody}</Text>
        <Group justify="flex-end">
          <Anchor component={Link} to="/" onClick={close}>
            Close
          </Anchor>
        </Group>
      </Stack>
    </Modal>
  );
}

/** SHELL-55: error modal, title "Error!" with the message. */
function ErrorModal() {
  const message = useShell((s) => s.errorMessage);
  return (
    <Modal
      opened={message !== null}
      onClose={() => shell.set({ errorMessage: null })}
      title={SHELL_STRINGS.errorTitle}
      centered
    >
      <Stack>
        <Text data-testid="error-message">{message}</Text>
        <Group justify="flex-end">
          <Button onClick={() => shell.set({ errorMessage: null })} data-autofocus>
            OK
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** SHELL-56: a sound was blocked by the browser; closing this counts as the interaction it needs. */
function InteractionRequired() {
  const opened = useShell((s) => s.interactionRequired);
  return (
    <Modal
      opened={opened}
      onClose={() => {
        resumeAudio();
        shell.set({ interactionRequired: false });
      }}
      centered
      size="sm"
      title="Sound"
    >
      <Text>{SHELL_STRINGS.interactionRequired}</Text>
    </Modal>
  );
}

function ImageViewer() {
  const url = useShell((s) => s.imageUrl);
  return (
    <Modal opened={url !== null} onClose={() => shell.set({ imageUrl: null })} size="auto" centered title="Image">
      {url && <Image src={url} alt="" mah="80dvh" fit="contain" />}
    </Modal>
  );
}

const PLAN_CARDS = [
  { plan: PLANS.starter, name: 'Starter', text: 'Tickets, live chat and the Workspace for a small team.' },
  { plan: PLANS.basic, name: 'Basic', text: 'Adds social channels, labels and reports.' },
  { plan: PLANS.pro, name: 'Pro', text: 'Adds calls, SLA alerts and customer analysis.' },
  { plan: PLANS.enterprise, name: 'Enterprise', text: 'Everything, with single sign-on and priority support.' },
];

/** SHELL-55: the upgrade modal; a plan's button opens settings section 17, subscriptions and billing (SHELL-53). */
function UpgradeModal() {
  const opened = useShell((s) => s.upgradeOpen);
  const close = () => shell.set({ upgradeOpen: false });
  return (
    <Modal opened={opened} onClose={close} title="Upgrade your plan" size="lg" centered>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {PLAN_CARDS.map((p) => (
          <Card key={p.plan} withBorder>
            <Title order={4}>{p.name}</Title>
            <Text size="sm" c="dimmed" mb="sm">
              {p.text}
            </Text>
            <Button
              variant="light"
              onClick={() => {
                close();
                shell.openSettings(BILLING_SECTION);
              }}
            >
              See {p.name}
            </Button>
          </Card>
        ))}
      </SimpleGrid>
    </Modal>
  );
}

/** SHELL-53, SHELL-54: opening settings by section index goes to that section. */
function SettingsOpener() {
  const section = useShell((s) => s.settingsSection);
  const navigate = useNavigate();
  if (section !== null) {
    queueMicrotask(() => {
      shell.set({ settingsSection: null });
      const key = SETTINGS_SECTIONS[section]?.key ?? 'profile';
      navigate(key === 'billing' ? '/plan' : `/settings/${key}`);
    });
  }
  return null;
}

export function ShellModals() {
  return (
    <>
      <LogoutConfirm />
      <RemovalModal />
      <ErrorModal />
      <InteractionRequired />
      <ImageViewer />
      <UpgradeModal />
      <SettingsOpener />
    </>
  );
}
