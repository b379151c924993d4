import { updatesPersonProperties } from '../persons/person-rules';
import { setOwn } from '../../common/json/clean-text';
import { isJsonObject, JsonObject } from '../../common/json/json-object';

/** Event properties PostHog copies onto the person: device and page context, then campaign parameters. */
const CONTEXT_PROPERTIES = [
  '$app_build', '$app_name', '$app_namespace', '$app_version',
  '$browser', '$browser_version', '$device_type', '$current_url', '$pathname', '$os', '$os_name', '$os_version',
  '$referring_domain', '$referrer', '$screen_height', '$screen_width', '$viewport_height', '$viewport_width', '$raw_user_agent',
];
const CAMPAIGN_PROPERTIES = [
  'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_name', 'utm_term',
  'gclid', 'gad_source', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'twclid', 'li_fat_id',
  'mc_cid', 'igshid', 'ttclid', 'rdt_cid', 'irclid', '_kx', 'epik', 'qclid', 'sccid',
];
const LIFTED = [...CONTEXT_PROPERTIES, ...CAMPAIGN_PROPERTIES].map((key) => [key, `$initial_${key.replace(/^\$/, '')}`] as const);

/**
 * The person side of an event's properties (PostHog's normalisation): personless events lose `$set`,
 * `$set_once` and `$unset`; others get the device/page/campaign properties as the latest value in `$set`
 * (unless the event sets them) and as first touch `$initial_*` in `$set_once` (never a null).
 */
export function applyPersonPropertyRules(event: string, properties: JsonObject): void {
  if (properties.$process_person_profile === false || event === '$groupidentify') {
    delete properties.$set;
    delete properties.$set_once;
    delete properties.$unset;
    return;
  }
  if (!updatesPersonProperties(event)) return;
  // Server SDKs describe their host, not the person: their $os must not become the person's first OS.
  const serverHost = properties.$is_server === true;
  let set: JsonObject | undefined;
  let setOnce: JsonObject | undefined;
  for (const [key, initialKey] of LIFTED) {
    if (!(key in properties) || (serverHost && (key === '$os' || key === '$os_version'))) continue;
    set ??= isJsonObject(properties.$set) ? { ...properties.$set } : {};
    setOnce ??= isJsonObject(properties.$set_once) ? { ...properties.$set_once } : {};
    const value = properties[key];
    if (!(key in set)) setOwn(set, key, value);
    if (value !== null && value !== undefined && !(initialKey in setOnce)) setOwn(setOnce, initialKey, value);
  }
  if (!set || !setOnce) return;
  // $os_name is an alias of $os: it only fills the first-touch OS, and is not a person property itself.
  if ('$os_name' in properties && !serverHost) {
    if (properties.$os_name !== null && !('$initial_os' in setOnce)) setOnce.$initial_os = properties.$os_name;
    delete set.$os_name;
    delete setOnce.$initial_os_name;
  }
  properties.$set = set;
  properties.$set_once = setOnce;
}
