import { TextInput } from '@mantine/core';
import { REPORT_STRINGS as S } from '@parley/contracts';
import { useState } from 'react';
import { isoDay, pickerDay, pickerToRequestDay } from '../../lib/dates';

const DAY_MS = 86_400_000;

/** The typed range checked: REPORT-08 DD-MM-YYYY, REPORT-09 the end not in the future and one day allowed. */
function checkRange(fromText: string, toText: string, today: string) {
  const startDate = pickerToRequestDay(fromText);
  const endDate = pickerToRequestDay(toText);
  const fromError = startDate ? null : S.badTypedDate;
  let toError: string | null = endDate ? null : S.badTypedDate;
  if (!toError && endDate > today) toError = S.futureDate;
  if (!fromError && !toError && startDate > endDate) return { fromError: S.startAfterEnd, toError: null, range: null };
  return { fromError, toError, range: fromError || toError ? null : { startDate, endDate } };
}

/**
 * A report's date range as typed (DD-MM-YYYY, by default the last seven days up to today) and, when it is
 * right, as the YYYY-MM-DD days a request sends (REPORT-10); null until then.
 */
export function useReportRange() {
  const [fromText, setFromText] = useState(() => pickerDay(Date.now() - 6 * DAY_MS));
  const [toText, setToText] = useState(() => pickerDay(Date.now()));
  const checked = checkRange(fromText, toText, isoDay(Date.now()));
  return { fromText, setFromText, toText, setToText, ...checked };
}
export type ReportRangeState = ReturnType<typeof useReportRange>;

/** The From and To inputs of a report, each with its own error. */
export function ReportRangeInputs({ range }: { range: ReportRangeState }) {
  return (
    <>
      <TextInput
        label={S.from}
        placeholder={S.dateFormat}
        value={range.fromText}
        onChange={(e) => range.setFromText(e.currentTarget.value)}
        error={range.fromError}
        w={{ base: '100%', xs: 170 }}
        data-testid="report-from"
      />
      <TextInput
        label={S.to}
        placeholder={S.dateFormat}
        value={range.toText}
        onChange={(e) => range.setToText(e.currentTarget.value)}
        error={range.toError}
        w={{ base: '100%', xs: 170 }}
        data-testid="report-to"
      />
    </>
  );
}
