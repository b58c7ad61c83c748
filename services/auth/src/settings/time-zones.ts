import { isValidTimeZone } from '@sched/policy/booking-periods';
import type { Context } from 'koa';

/**
 * The profile page's time-zone picker: a `<select>` with one `<optgroup>` per region (the part of
 * the IANA name before the first `/`), usable without JavaScript; the script below adds a search
 * box that hides the options that do not match what is typed.
 */

export interface TimeZoneGroup {
  region: string;
  zones: string[];
}

const OTHER = 'Other';
let cached: TimeZoneGroup[] | undefined;

/** Every zone the runtime knows (`Intl.supportedValuesOf('timeZone')`) plus UTC, grouped by region. */
export function timeZoneGroups(): TimeZoneGroup[] {
  cached ??= groupZones(['UTC', ...Intl.supportedValuesOf('timeZone')]);
  return cached;
}

function groupZones(zones: readonly string[]): TimeZoneGroup[] {
  const byRegion = new Map<string, Set<string>>();
  for (const zone of zones) {
    const slash = zone.indexOf('/');
    const region = slash > 0 ? zone.slice(0, slash) : OTHER;
    const set = byRegion.get(region) ?? new Set<string>();
    byRegion.set(region, set);
    set.add(zone);
  }
  return [...byRegion.entries()]
    .sort(([a], [b]) => (a === OTHER ? 1 : b === OTHER ? -1 : a.localeCompare(b)))
    .map(([region, set]) => ({ region, zones: [...set].sort((a, b) => a.localeCompare(b)) }));
}

/**
 * The groups with `current` in them: a valid zone the list lacks (an alias such as US/Pacific that
 * the user set through the API) is added to its region, so saving the form keeps it.
 */
export function timeZoneGroupsWith(current: string): TimeZoneGroup[] {
  const groups = timeZoneGroups();
  if (!isValidTimeZone(current) || groups.some((group) => group.zones.includes(current))) return groups;
  return groupZones([...groups.flatMap((group) => group.zones), current]);
}

/** A zone's label in the list: the city part with spaces ("America/New_York" -> "New York (America/New_York)"). */
export const timeZoneLabel = (zone: string): string => {
  const slash = zone.lastIndexOf('/');
  if (slash < 0) return zone;
  return `${zone.slice(slash + 1).replace(/_/g, ' ')} (${zone})`;
};

/**
 * The script (same origin, allowed by `script-src 'self'` on the profile page only): shows the
 * search box and filters the options and groups of the time-zone list. The selected zone always
 * stays visible, so the form never submits something the user cannot see.
 */
const SCRIPT = `(() => {
  const input = document.getElementById('timeZone-search');
  const select = document.getElementById('timeZone');
  if (!input || !select) return;
  input.hidden = false;
  const hint = document.getElementById('timeZone-search-hint');
  if (hint) hint.hidden = false;
  const normalise = (text) => text.toLowerCase().replace(/[_\\s/()-]+/g, ' ').trim();
  const filter = () => {
    const words = normalise(input.value).split(' ').filter(Boolean);
    let first = null;
    for (const group of select.querySelectorAll('optgroup')) {
      let shown = 0;
      for (const option of group.querySelectorAll('option')) {
        const haystack = normalise(group.label + ' ' + option.textContent);
        const match = words.every((word) => haystack.includes(word));
        option.hidden = !match && !option.selected;
        option.disabled = !match && !option.selected;
        if (match) { shown += 1; first ??= option; }
      }
      group.hidden = shown === 0 && !group.querySelector('option:checked');
    }
    return first;
  };
  input.addEventListener('input', () => { filter(); });
  input.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const first = filter();
    if (first) { select.value = first.value; select.focus(); }
  });
})();
`;

export function timeZoneScript(ctx: Context): void {
  ctx.type = 'text/javascript; charset=utf-8';
  ctx.set('Cache-Control', 'public, max-age=3600');
  ctx.body = SCRIPT;
}
