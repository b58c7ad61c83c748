// The rules live in @sched/policy/user-fields (the settings' profile page uses them too).
export { LOCALES, timeZoneInput, usernameInput } from '@sched/policy/user-fields';
