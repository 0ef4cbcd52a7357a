import { Loader, Stack } from '@mantine/core';
import type { SlaSettings as Settings } from '@parley/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useDepartments } from '../../lib/api/departments';
import { labelsApi } from '../../lib/api/labels';
import { labelKeys, slaKeys } from '../../lib/queryKeys';
import { slaApi } from './api';
import { BusinessHoursCard } from './BusinessHoursCard';
import { HolidaysCard } from './HolidaysCard';
import { SlaPoliciesCard } from './SlaPoliciesCard';

/** Settings -> SLA (admins): business hours, holidays and SLA policies. */
export function SlaSettings() {
  const qc = useQueryClient();
  const settings = useQuery({ queryKey: slaKeys.settings, queryFn: slaApi.settings });
  const departments = useDepartments();
  const labels = useQuery({ queryKey: labelKeys.list, queryFn: labelsApi.list });
  if (!settings.data) return <Loader size="sm" />;
  const onSaved = (s: Settings) => qc.setQueryData(slaKeys.settings, s);
  const deps = (departments.data ?? []).map((d) => ({ id: d.id, name: d.name }));
  return (
    <Stack>
      <BusinessHoursCard settings={settings.data} departments={deps} onSaved={onSaved} />
      <HolidaysCard settings={settings.data} departments={deps} onSaved={onSaved} />
      <SlaPoliciesCard
        settings={settings.data}
        departments={deps}
        labels={(labels.data ?? []).filter((l) => !l.removed).map((l) => ({ id: l.id, name: l.name }))}
        onSaved={onSaved}
      />
    </Stack>
  );
}
