/**
 * The urn's vocabulary (R0 and the probe) and its lexical reskins (Appendix
 * F.4): a container of items that differ in one visible attribute. Classes
 * take attribute values in order of first appearance, so a value says nothing
 * about the hidden family or its role.
 */
export interface Vocabulary {
  readonly container: string;
  readonly item: string;
  readonly items: string;
  readonly attribute: string;
  readonly attributes: string;
  readonly values: readonly string[];
}

export const VOCABULARIES = {
  ball: {
    container: 'bag',
    item: 'ball',
    items: 'balls',
    attribute: 'color',
    attributes: 'colors',
    values: ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'white', 'black', 'pink', 'brown', 'gray', 'teal'],
  },
  chest: {
    container: 'treasure chest',
    item: 'coin',
    items: 'coins',
    attribute: 'crest',
    attributes: 'crests',
    values: ['lion', 'eagle', 'dragon', 'rose', 'anchor', 'star', 'crown', 'wolf', 'oak', 'tower', 'serpent', 'sun'],
  },
  quiver: {
    container: 'quiver',
    item: 'arrow',
    items: 'arrows',
    attribute: 'feather',
    attributes: 'feathers',
    values: ['owl', 'hawk', 'raven', 'heron', 'swan', 'crow', 'falcon', 'goose', 'pheasant', 'gull', 'kite', 'wren'],
  },
  cauldron: {
    container: 'cauldron',
    item: 'potion',
    items: 'potions',
    attribute: 'label',
    attributes: 'labels',
    values: ['ember', 'frost', 'moss', 'ash', 'dusk', 'tide', 'bloom', 'stone', 'thorn', 'mist', 'amber', 'storm'],
  },
} as const satisfies Record<string, Vocabulary>;

export type Reskin = keyof typeof VOCABULARIES;
export const RESKINS = Object.keys(VOCABULARIES) as Reskin[];

/** The attribute value shown for a class label (labels count from 0 by first appearance). */
export function attributeValue(vocabulary: Vocabulary, label: number): string {
  return vocabulary.values[label] ?? `${vocabulary.attribute} #${label + 1}`;
}
