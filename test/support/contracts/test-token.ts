// Compiled from TestToken.sol beside this file with solc 0.8.28 (solc-js), optimizer on:
//   bunx solc@0.8.28 --optimize --bin --abi -o out test/support/contracts/TestToken.sol
// Committed so tests need no compiler; recompile and paste when the source changes.

export const testTokenAbi = [
  {
    "inputs": [
      {
        "internalType": "uint8",
        "name": "decimals_",
        "type": "uint8"
      },
      {
        "internalType": "uint256",
        "name": "supply",
        "type": "uint256"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "constructor"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "owner",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "spender",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "Approval",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "Transfer",
    "type": "event"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "name": "allowance",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "spender",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "approve",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "name": "balanceOf",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "decimals",
    "outputs": [
      {
        "internalType": "uint8",
        "name": "",
        "type": "uint8"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "name",
    "outputs": [
      {
        "internalType": "string",
        "name": "",
        "type": "string"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "payAndFail",
    "outputs": [],
    "stateMutability": "payable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "symbol",
    "outputs": [
      {
        "internalType": "string",
        "name": "",
        "type": "string"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "totalSupply",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "transfer",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "transferFrom",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  }
] as const;

export const testTokenBytecode: `0x${string}` = `0x${[
  "60a0604052348015600e575f5ffd5b50604051610712380380610712833981016040819052602b916081565b60ff82166080525f8181553380825260",
  "0160209081526040808420859055518481529192917fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef910160405180",
  "910390a3505060b0565b5f5f604083850312156091575f5ffd5b825160ff8116811460a0575f5ffd5b6020939093015192949293505050565b608051",
  "61064a6100c85f395f61015f015261064a5ff3fe60806040526004361061008f575f3560e01c806370a082311161005757806370a082311461019357",
  "806395d89b41146101be578063a9059cbb146101ec578063dd62ed3e1461020b578063ede5d3b614610241575f5ffd5b806306fdde03146100935780",
  "63095ea7b3146100de57806318160ddd1461010d57806323b872dd1461012f578063313ce5671461014e575b5f5ffd5b34801561009e575f5ffd5b50",
  "6100c86040518060400160405280600a8152602001692a32b9ba102a37b5b2b760b11b81525081565b6040516100d591906104d7565b604051809103",
  "90f35b3480156100e9575f5ffd5b506100fd6100f8366004610527565b610256565b60405190151581526020016100d5565b348015610118575f5ffd",
  "5b506101215f5481565b6040519081526020016100d5565b34801561013a575f5ffd5b506100fd61014936600461054f565b6102c2565b3480156101",
  "59575f5ffd5b506101817f000000000000000000000000000000000000000000000000000000000000000081565b60405160ff909116815260200161",
  "00d5565b34801561019e575f5ffd5b506101216101ad366004610589565b60016020525f908152604090205481565b3480156101c9575f5ffd5b5061",
  "00c8604051806040016040528060038152602001621514d560ea1b81525081565b3480156101f7575f5ffd5b506100fd610206366004610527565b61",
  "0372565b348015610216575f5ffd5b506101216102253660046105a9565b600260209081525f928352604080842090915290825290205481565b6102",
  "5461024f366004610527565b610387565b005b335f8181526002602090815260408083206001600160a01b0387168085529252808320859055519192",
  "90917f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925906102b09086815260200190565b60405180910390a3506001",
  "5b92915050565b6001600160a01b0383165f9081526002602090815260408083203384529091528120548211156103255760405162461bcd60e51b81",
  "52602060048201526009602482015268616c6c6f77616e636560b81b60448201526064015b60405180910390fd5b6001600160a01b0384165f908152",
  "600260209081526040808320338452909152812080548492906103579084906105ee565b9091555061036890508484846103da565b50600193925050",
  "50565b5f61037e3384846103da565b50600192915050565b6103923383836103da565b60405162461bcd60e51b815260206004820152601960248201",
  "527f706179416e644661696c20616c77617973207265766572747300000000000000604482015260640161031c565b6001600160a01b0383165f9081",
  "526001602052604090205481111561042b5760405162461bcd60e51b815260206004820152600760248201526662616c616e636560c81b6044820152",
  "60640161031c565b6001600160a01b0383165f90815260016020526040812080548392906104529084906105ee565b90915550506001600160a01b03",
  "82165f908152600160205260408120805483929061047e908490610601565b92505081905550816001600160a01b0316836001600160a01b03167fdd",
  "f252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef836040516104ca91815260200190565b60405180910390a3505050565b",
  "602081525f82518060208401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b80356001600160",
  "a01b0381168114610522575f5ffd5b919050565b5f5f60408385031215610538575f5ffd5b6105418361050c565b946020939093013593505050565b",
  "5f5f5f60608486031215610561575f5ffd5b61056a8461050c565b92506105786020850161050c565b929592945050506040919091013590565b5f60",
  "208284031215610599575f5ffd5b6105a28261050c565b9392505050565b5f5f604083850312156105ba575f5ffd5b6105c38361050c565b91506105",
  "d16020840161050c565b90509250929050565b634e487b7160e01b5f52601160045260245ffd5b818103818111156102bc576102bc6105da565b8082",
  "01808211156102bc576102bc6105da56fea26469706673582212200d2acdc801f95935eed79f77892e2fb6021959f8a168c9f718e39bab1bbd3d5564",
  "736f6c634300081c0033"
].join("")}`;
