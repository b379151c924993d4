/** What posthog-js reads from `/array/<token>/config` to configure itself. */
export interface RemoteConfig {
  token: string;
  supportedCompression: string[];
  hasFeatureFlags: boolean;
  captureDeadClicks: boolean;
  capturePerformance: boolean;
  autocapture_opt_out: boolean;
  autocaptureExceptions: boolean;
  analytics: { endpoint: string };
  elementsChainAsString: boolean;
  sessionRecording: false;
  heatmaps: boolean;
  surveys: boolean;
  defaultIdentifiedOnly: boolean;
  siteApps: unknown[];
}

/** Compressions capture decodes: posthog-js picks gzip-js from this list. */
export const SUPPORTED_COMPRESSION = ['gzip', 'gzip-js', 'lz64'];

export function buildRemoteConfig(token: string, hasFeatureFlags: boolean): RemoteConfig {
  return {
    token,
    supportedCompression: SUPPORTED_COMPRESSION,
    hasFeatureFlags,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    // Session replay is not part of this service.
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
  };
}

/** `config.js`: the script form posthog-js loads first; it registers the config under the token. */
export function remoteConfigScript(config: RemoteConfig): string {
  const body = JSON.stringify({ config, siteApps: [] }).replace(/</g, '\\u003c');
  return `(function() {\n  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};\n  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(config.token)}] = ${body};\n})();\n`;
}
