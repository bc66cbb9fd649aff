import { InputError } from '../../core/errors.js';
import { policyProvider } from './policy-provider.js';
import type { Provider } from './provider.js';

/** Providers by the prefix of a model id (`provider/model`). */
const FACTORIES: Readonly<Record<string, (model: string) => Provider>> = {
  policy: policyProvider,
};

export const PROVIDER_NAMES = Object.keys(FACTORIES);

export function providerName(model: string): string {
  const slash = model.indexOf('/');
  if (slash <= 0 || slash === model.length - 1) throw new InputError(`model '${model}': expected provider/model, e.g. policy/commit-at-2`);
  return model.slice(0, slash);
}

/** Builds the provider for a model id; an unknown provider or malformed id is a one-line InputError. */
export function createProvider(model: string): Provider {
  const name = providerName(model);
  const factory = FACTORIES[name];
  if (!factory) throw new InputError(`model '${model}': unknown provider '${name}' (known: ${PROVIDER_NAMES.join(', ')})`);
  return factory(model);
}

/** One provider instance per model id, created on first use (they may hold clients and caches). */
export class ProviderRegistry {
  private readonly providers = new Map<string, Provider>();

  get(model: string): Provider {
    let provider = this.providers.get(model);
    if (!provider) {
      provider = createProvider(model);
      this.providers.set(model, provider);
    }
    return provider;
  }
}
