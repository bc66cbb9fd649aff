import { sampleSymmetricDirichlet } from '../random/gamma.js';
import { randomUnit, type Rng } from '../random/rng.js';

/** A class sequence under the prior of Appendix A.1: rates ~ Dirichlet(alpha), then i.i.d. draws. */
export function drawDirichletClasses(rng: Rng, alpha: number, classCount: number, length: number): Uint8Array {
  const rates = sampleSymmetricDirichlet(rng, alpha, classCount);
  const classes = new Uint8Array(length);
  for (let t = 0; t < length; t++) {
    let u = randomUnit(rng);
    let c = 0;
    while (c < classCount - 1 && u >= (rates[c] as number)) u -= rates[c++] as number;
    classes[t] = c;
  }
  return classes;
}
