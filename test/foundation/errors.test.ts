import { AppError, BadRequestError, NotFoundError, UnauthorizedError } from '@sched/kit/errors';
import test from 'ava';

const frames = (error: Error) =>
  (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));

test('an AppError is an answer: no stack frames captured, name and message kept', (t) => {
  for (const error of [
    new NotFoundError('No such team'),
    new UnauthorizedError(),
    new BadRequestError('bad'),
  ]) {
    t.true(error instanceof AppError);
    t.deepEqual(frames(error), []);
    t.is(error.name, error.constructor.name);
    t.true(error.stack?.startsWith(`${error.name}: ${error.message}`));
  }
});

test('other errors keep their stacks: the limit is restored after an AppError', (t) => {
  const limit = Error.stackTraceLimit;
  new NotFoundError();
  t.is(Error.stackTraceLimit, limit);
  t.true(frames(new Error('a fault')).length > 0);
});
