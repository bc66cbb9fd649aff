import { InputError } from '../../core/errors.js';

/**
 * A hosted model id `<provider>/<name>[?key=value&…]` read into the model name
 * the API is sent and its options; an empty name or an option not in
 * `allowed` is a one-line InputError. The options stay in the model id, so a
 * run records them wherever it records the model.
 */
export function modelOptions(model: string, allowed: readonly string[]): { readonly name: string; readonly options: URLSearchParams } {
  const rest = model.slice(model.indexOf('/') + 1);
  const [name = '', query = ''] = rest.split('?', 2);
  if (name === '') throw new InputError(`model '${model}': no model name after the provider`);
  const options = new URLSearchParams(query);
  const unknown = [...options.keys()].find((key) => !allowed.includes(key));
  if (unknown !== undefined)
    throw new InputError(
      `${model}: unknown option '${unknown}' (${allowed.length === 1 ? `the only option is ${allowed[0]}` : `options: ${allowed.join(', ')}`})`,
    );
  return { name, options };
}

/** A model id without its options: what its price is listed under. */
export function withoutOptions(model: string): string {
  return model.split('?', 1)[0] as string;
}
