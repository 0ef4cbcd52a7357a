import { useMantineColorScheme } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { LOCAL_KEYS } from '@parley/contracts';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { realtime } from '../../lib/realtime';
import { shell } from '../../lib/shellStore';
import { toast } from '../../ui/toast';

/**
 * SHELL-60, SHELL-61: alt+shift shortcuts for support sessions and power users.
 * d debug panel · e dark/light · w reconnect the socket · c clear this browser's panel preferences ·
 * v show the version · s My Status · a About.
 * SHELL-62: holding Alt turns on the action mode (the ticket list shows quick actions while it is on).
 */
export function useShortcuts() {
  const navigate = useNavigate();
  const { toggleColorScheme } = useMantineColorScheme();
  useHotkeys(
    [
      ['alt+shift+D', () => shell.set({ debugOpen: !shell.get().debugOpen })],
      ['alt+shift+E', () => toggleColorScheme()],
      ['alt+shift+W', () => (realtime.isOpen() ? realtime.reconnect() : realtime.connect())],
      [
        'alt+shift+C',
        () => {
          for (const k of [LOCAL_KEYS.pinnedNav, LOCAL_KEYS.navHintsSeen, LOCAL_KEYS.dismissedAnnouncement]) {
            localStorage.removeItem(k);
          }
          toast({ message: 'Panel preferences cleared. They apply after a reload.' });
        },
      ],
      ['alt+shift+V', () => toast({ message: `Parley ${__APP_VERSION__}` })],
      ['alt+shift+S', () => shell.set({ myStatusOpen: true })],
      ['alt+shift+A', () => navigate('/about')],
    ],
    [],
  );
  useEffect(() => {
    const set = (on: boolean) => {
      if (shell.get().altMode === on) return;
      shell.set({ altMode: on });
      document.body.toggleAttribute('data-alt-mode', on);
    };
    const down = (e: KeyboardEvent) => set(e.key === 'Alt' || (e.altKey && !e.shiftKey));
    const up = (e: KeyboardEvent) => e.key === 'Alt' && set(false);
    const blur = () => set(false);
    window.addEventListener('keydown', down);
    window.addEventListener('keyup', up);
    window.addEventListener('blur', blur);
    return () => {
      window.removeEventListener('keydown', down);
      window.removeEventListener('keyup', up);
      window.removeEventListener('blur', blur);
    };
  }, []);
}
